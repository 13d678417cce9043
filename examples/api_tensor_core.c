/* API tour of the core of ctorch: dtypes and their scalar conversions, the context and version,
 * tensor creation and metadata, views that share storage (view, reshape, permute, slice, expand,
 * squeeze, unsqueeze), device copies, printing, loading .npy and safetensors bytes from memory,
 * DLPack export and import, and the caching allocator (statistics, summary, snapshot, cache
 * release, a device allocator over its own segment calls).
 *
 * Every section prints one or two short lines and checks its results against values worked out by
 * hand (the .npy and safetensors inputs are written byte by byte from the published formats), so
 * the program exits 1 if the library gets anything wrong.
 *
 * Build and run: it is built as example_api_tensor_core and run by ctest; by hand:
 *   gcc -std=c11 -D_GNU_SOURCE -Iinclude examples/api_tensor_core.c build/libctorch.a \
 *       -lopenblas -llapacke -fopenmp -lm -ldl -lpthread -o api_tensor_core && ./api_tensor_core */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A failed call: print the call and the context's message, fail the example. */
#define TRY(call)                                                                                  \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "line %d: %s -> %s: %s\n", __LINE__, #call, ct_status_str(st_),        \
                    ct_ctx_last_error(ctx));                                                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
/* A wrong result: say which check failed, fail the example. */
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "line %d: check failed: %s\n", __LINE__, #cond);                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
/* An expected failure: the call must return `want` and leave a message on the context. */
#define EXPECT_ERR(call, want)                                                                     \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != (want) || ct_ctx_last_error(ctx)[0] == '\0') {                                  \
            fprintf(stderr, "line %d: %s returned %s, expected %s\n", __LINE__, #call,             \
                    ct_status_str(st_), ct_status_str(want));                                      \
            return 1;                                                                              \
        }                                                                                          \
        printf("  error (expected): %s\n", ct_ctx_last_error(ctx));                                \
    } while (0)

static const ct_device CPU = {CT_DEVICE_CPU, 0};

static bool shape_is(const ct_tensor *t, int ndim, const int64_t *shape) {
    if (ct_tensor_ndim(t) != ndim) return false;
    for (int i = 0; i < ndim; i++)
        if (ct_tensor_size(t, i) != shape[i]) return false;
    return true;
}
static bool strides_are(const ct_tensor *t, const int64_t *strides) {
    const int64_t *s = ct_tensor_stride(t);
    for (int i = 0; i < ct_tensor_ndim(t); i++)
        if (s[i] != strides[i]) return false;
    return true;
}

/* ---- dtypes: the table, names, sizes, promotion ---- */
static int section_dtypes(void) {
    printf("[dtypes]\n");
    /* ct_dtype_get_info: the table row of a dtype (PyTorch name, safetensors name, bits,
     * storage bytes, kind); NULL for a value that is not a dtype. */
    const ct_dtype_info *e4m3 = ct_dtype_get_info(CT_FLOAT8_E4M3FN);
    const ct_dtype_info *fp4 = ct_dtype_get_info(CT_FLOAT4_E2M1FN);
    EXPECT(e4m3 && strcmp(e4m3->name, "float8_e4m3fn") == 0 &&
           strcmp(e4m3->safetensors_name, "F8_E4M3") == 0 && e4m3->bits == 8 &&
           e4m3->itemsize == 1 && e4m3->kind == CT_KIND_FLOAT);
    EXPECT(fp4 && fp4->bits == 4 && fp4->itemsize == 1 && strcmp(fp4->safetensors_name, "F4") == 0);
    EXPECT(ct_dtype_get_info(CT_DTYPE_COUNT) == NULL);
    printf("  info: %s = %s, %d bits; %s = %s, %d bits in %d byte\n", e4m3->name,
           e4m3->safetensors_name, e4m3->bits, fp4->name, fp4->safetensors_name, fp4->bits,
           fp4->itemsize);

    /* ct_dtype_name / ct_dtype_size: PyTorch name and bytes per element in storage. */
    EXPECT(strcmp(ct_dtype_name(CT_BFLOAT16), "bfloat16") == 0);
    EXPECT(strcmp(ct_dtype_name(CT_DTYPE_COUNT), "invalid") == 0);
    EXPECT(ct_dtype_size(CT_FLOAT64) == 8 && ct_dtype_size(CT_BFLOAT16) == 2 &&
           ct_dtype_size(CT_BOOL) == 1 && ct_dtype_size(CT_FLOAT4_E2M1FN) == 1 &&
           ct_dtype_size(CT_DTYPE_COUNT) == 0);
    printf("  sizes: float64 %zu, bfloat16 %zu, float4_e2m1fn %zu\n", ct_dtype_size(CT_FLOAT64),
           ct_dtype_size(CT_BFLOAT16), ct_dtype_size(CT_FLOAT4_E2M1FN));

    /* ct_dtype_from_name: PyTorch ("torch.float32"), safetensors ("BF16") or short ("f16") names.
     */
    ct_dtype a, b, c, d;
    EXPECT(ct_dtype_from_name("torch.float32", &a) == CT_OK && a == CT_FLOAT32);
    EXPECT(ct_dtype_from_name("BF16", &b) == CT_OK && b == CT_BFLOAT16);
    EXPECT(ct_dtype_from_name("f16", &c) == CT_OK && c == CT_FLOAT16);
    EXPECT(ct_dtype_from_name("F8_E4M3", &d) == CT_OK && d == CT_FLOAT8_E4M3FN);
    EXPECT(ct_dtype_from_name("float128", &d) == CT_ERR_INVALID_ARG);
    printf("  from_name: torch.float32 -> %s, BF16 -> %s, f16 -> %s; float128 -> %s\n",
           ct_dtype_name(a), ct_dtype_name(b), ct_dtype_name(c), ct_status_str(CT_ERR_INVALID_ARG));

    /* ct_dtype_is_floating: f16/bf16/f32/f64 and the low-precision floats. */
    EXPECT(ct_dtype_is_floating(CT_BFLOAT16) && ct_dtype_is_floating(CT_FLOAT8_E5M2) &&
           !ct_dtype_is_floating(CT_INT32) && !ct_dtype_is_floating(CT_BOOL));

    /* ct_dtype_promote: torch.promote_types. Mixed int/float picks the float; uint8 with int8
     * needs int16; two 16-bit floats of different formats meet in float32. */
    const struct {
        ct_dtype a, b, want;
    } promo[] = {{CT_INT32, CT_FLOAT32, CT_FLOAT32},
                 {CT_UINT8, CT_INT8, CT_INT16},
                 {CT_BOOL, CT_INT64, CT_INT64},
                 {CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32},
                 {CT_INT64, CT_FLOAT16, CT_FLOAT16}};
    for (size_t i = 0; i < sizeof promo / sizeof promo[0]; i++) {
        ct_dtype got;
        EXPECT(ct_dtype_promote(promo[i].a, promo[i].b, &got) == CT_OK && got == promo[i].want);
    }
    ct_dtype got;
    EXPECT(ct_dtype_promote(CT_FLOAT8_E4M3FN, CT_FLOAT32, &got) == CT_ERR_DTYPE);
    printf("  promote: int32+float32 -> float32, uint8+int8 -> int16, float16+bfloat16 -> "
           "float32; float8 -> %s\n",
           ct_status_str(CT_ERR_DTYPE));

    /* ct_f32_to_f16 / ct_f16_to_f32: IEEE half bits, round to nearest even. 1/3 rounds to
     * 0x3555 = 1365/4096; 65520 is the tie between 65504 (max) and 65536, so it goes to inf. */
    EXPECT(ct_f32_to_f16(1.0f) == 0x3C00 && ct_f32_to_f16(-2.0f) == 0xC000 &&
           ct_f32_to_f16(0.5f) == 0x3800 && ct_f32_to_f16(65504.0f) == 0x7BFF &&
           ct_f32_to_f16(65520.0f) == 0x7C00 && ct_f32_to_f16(ldexpf(1.0f, -24)) == 0x0001 &&
           ct_f32_to_f16(1.0f / 3.0f) == 0x3555);
    EXPECT(ct_f16_to_f32(0x3555) == 1365.0f / 4096.0f && ct_f16_to_f32(0x7BFF) == 65504.0f &&
           isinf(ct_f16_to_f32(0x7C00)) && isnan(ct_f16_to_f32(ct_f32_to_f16(NAN))));
    printf("  f16: 1.0 -> 0x%04X, 1/3 -> 0x%04X -> %.9g, 65520 -> 0x%04X (inf)\n",
           ct_f32_to_f16(1.0f), ct_f32_to_f16(1.0f / 3.0f), ct_f16_to_f32(0x3555),
           ct_f32_to_f16(65520.0f));

    /* ct_f32_to_bf16 / ct_bf16_to_f32: the top 16 bits of a float32, rounded to nearest even:
     * pi -> 0x4049 (3.140625); 1 + 2^-8 and 1 + 3 * 2^-8 are ties (to 0x3F80 and 0x3F82). */
    EXPECT(ct_f32_to_bf16(1.0f) == 0x3F80 && ct_f32_to_bf16(3.14159265f) == 0x4049 &&
           ct_f32_to_bf16(1.0f + ldexpf(1.0f, -8)) == 0x3F80 &&
           ct_f32_to_bf16(1.0f + 3 * ldexpf(1.0f, -8)) == 0x3F82);
    EXPECT(ct_bf16_to_f32(0x4049) == 3.140625f && ct_bf16_to_f32(0xC000) == -2.0f &&
           isnan(ct_bf16_to_f32(ct_f32_to_bf16(NAN))));
    printf("  bf16: 1.0 -> 0x%04X, pi -> 0x%04X -> %g\n", ct_f32_to_bf16(1.0f),
           ct_f32_to_bf16(3.14159265f), ct_bf16_to_f32(0x4049));
    return 0;
}

/* ---- the library and the context ---- */
static int section_context(ct_ctx *ctx, ct_ctx *dbg) {
    printf("[context]\n");
    /* ct_version: the linked library's "MAJOR.MINOR.PATCH", which matches the header's macros. */
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", CT_VERSION_MAJOR, CT_VERSION_MINOR, CT_VERSION_PATCH);
    EXPECT(strcmp(ct_version(), want) == 0);
    printf("  version %s\n", ct_version());

    /* ct_ctx_num_threads: the threads this context's kernels use (asked for 2 in main). */
    EXPECT(ct_ctx_num_threads(ctx) == 2 && ct_ctx_num_threads(NULL) == 0);
    printf("  threads: %d\n", ct_ctx_num_threads(ctx));

    /* ct_ctx_debug: debug mode (poisoned released handles, no block cache), from the options or
     * CT_DEBUG=1 in the environment. */
    const char *env = getenv("CT_DEBUG");
    const bool env_debug = env && strcmp(env, "1") == 0;
    EXPECT(ct_ctx_debug(ctx) == env_debug && ct_ctx_debug(dbg));
    printf("  debug: default context %s, debug context %s\n", ct_ctx_debug(ctx) ? "yes" : "no",
           ct_ctx_debug(dbg) ? "yes" : "no");

    /* ct_blas_info: the BLAS the library was linked with (machine dependent). */
    const char *blas = ct_blas_info();
    EXPECT(blas && blas[0] != '\0');
    printf("  blas: %s\n", blas);
    return 0;
}

/* ---- creation, metadata, reference counting ---- */
static int section_creation(ct_ctx *ctx) {
    printf("[creation and metadata]\n");
    const int64_t live0 = ct_ctx_live_tensors(ctx);

    /* ct_tensor_empty: an uninitialised contiguous tensor; strides are C order, in elements. */
    ct_tensor *e;
    const int64_t eshape[3] = {2, 3, 4}, estrides[3] = {12, 4, 1};
    TRY(ct_tensor_empty(ctx, CT_FLOAT32, 3, eshape, &e));
    EXPECT(shape_is(e, 3, eshape) && strides_are(e, estrides) && ct_tensor_is_contiguous(e));
    EXPECT(ct_tensor_dtype(e) == CT_FLOAT32 && ct_tensor_storage_offset(e) == 0);
    /* ct_tensor_size: negative dims count from the end; out-of-range dims give 0. */
    EXPECT(ct_tensor_size(e, -1) == 4 && ct_tensor_size(e, -3) == 2 && ct_tensor_size(e, 7) == 0);
    printf("  empty: shape (%lld, %lld, %lld) strides (%lld, %lld, %lld) dtype %s\n",
           (long long)ct_tensor_size(e, 0), (long long)ct_tensor_size(e, 1),
           (long long)ct_tensor_size(e, 2), (long long)ct_tensor_stride(e)[0],
           (long long)ct_tensor_stride(e)[1], (long long)ct_tensor_stride(e)[2],
           ct_dtype_name(ct_tensor_dtype(e)));

    /* ct_tensor_empty_on: the same on a chosen device; ct_tensor_device reports it. The CPU is
     * cpu:0; a device without a registered backend is CT_ERR_DEVICE. */
    ct_tensor *eo, *bad = NULL;
    TRY(ct_tensor_empty_on(ctx, CPU, CT_INT64, 1, (const int64_t[]){5}, &eo));
    const ct_device dv = ct_tensor_device(eo);
    EXPECT(dv.type == CT_DEVICE_CPU && dv.index == 0 && ct_tensor_numel(eo) == 5);
    printf("  empty_on: device type %d index %d, %lld elements\n", dv.type, dv.index,
           (long long)ct_tensor_numel(eo));
    EXPECT_ERR(ct_tensor_empty_on(ctx, (ct_device){CT_DEVICE_CUDA, 0}, CT_FLOAT32, 1,
                                  (const int64_t[]){5}, &bad),
               CT_ERR_DEVICE);

    /* ct_tensor_arange: start, start+step, ... < end (torch.arange). */
    ct_tensor *ar;
    TRY(ct_tensor_arange(ctx, CT_FLOAT32, 0.0, 1.0, 0.25, &ar));
    float av[4];
    EXPECT(ct_tensor_numel(ar) == 4);
    TRY(ct_tensor_to_host(ar, av, sizeof av));
    EXPECT(av[0] == 0.0f && av[1] == 0.25f && av[2] == 0.5f && av[3] == 0.75f);
    printf("  arange(0, 1, 0.25): %g %g %g %g\n", av[0], av[1], av[2], av[3]);
    /* Integer arange never wraps: 0..999 does not fit int8. */
    EXPECT_ERR(ct_tensor_arange(ctx, CT_INT8, 0, 1000, 1, &bad), CT_ERR_INVALID_ARG);

    /* ct_tensor_rand: uniform [0, 1) from a counter-based generator: element i depends only on
     * (seed, offset + i), so a draw at offset 2 is the draw at offset 0 shifted by two. */
    ct_tensor *r0, *r2;
    TRY(ct_tensor_rand(ctx, CT_FLOAT64, 1, (const int64_t[]){6}, 42, 0, &r0));
    TRY(ct_tensor_rand(ctx, CT_FLOAT64, 1, (const int64_t[]){4}, 42, 2, &r2));
    double rv0[6], rv2[4];
    TRY(ct_tensor_to_host(r0, rv0, sizeof rv0));
    TRY(ct_tensor_to_host(r2, rv2, sizeof rv2));
    for (int i = 0; i < 6; i++)
        EXPECT(rv0[i] >= 0.0 && rv0[i] < 1.0);
    for (int i = 0; i < 4; i++)
        EXPECT(rv2[i] == rv0[i + 2]);
    printf("  rand(seed 42): %.4f %.4f %.4f ...; at offset 2 it starts with %.4f\n", rv0[0], rv0[1],
           rv0[2], rv2[0]);
    ct_tensor_release(r0);
    ct_tensor_release(r2);

    /* ct_tensor_retain: one more reference to the same handle; each needs its own release.
     * ct_ctx_live_tensors counts the handles not yet released (views included). */
    EXPECT(ct_ctx_live_tensors(ctx) == live0 + 3);
    ct_tensor *again = ct_tensor_retain(ar);
    EXPECT(again == ar);
    ct_tensor_release(ar); /* the tensor lives on: `again` still holds it */
    EXPECT(ct_ctx_live_tensors(ctx) == live0 + 3 && ct_tensor_numel(again) == 4);
    ct_tensor_release(again);
    ct_tensor_release(e);
    ct_tensor_release(eo);
    EXPECT(ct_ctx_live_tensors(ctx) == live0);
    printf("  live tensors back to %lld after the releases\n", (long long)live0);
    return 0;
}

/* ---- views: share storage, only shape / strides / offset differ ---- */
static int section_views(ct_ctx *ctx) {
    printf("[views]\n");
    const int64_t live0 = ct_ctx_live_tensors(ctx);
    ct_tensor *base, *m, *mt, *sl, *row, *ex, *sq, *un, *rs_view, *rs_copy, *bad = NULL;
    TRY(ct_tensor_arange(ctx, CT_INT32, 0, 12, 1, &base)); /* 0, 1, ..., 11 */
    int32_t *bp = ct_tensor_data_ptr(base);

    /* ct_tensor_view: (12,) seen as (3, 4); -1 would infer a dim. Same memory. */
    TRY(ct_tensor_view(ctx, base, 2, (const int64_t[]){3, -1}, &m));
    EXPECT(shape_is(m, 2, (const int64_t[]){3, 4}) && strides_are(m, (const int64_t[]){4, 1}));
    EXPECT(ct_tensor_data_ptr(m) == bp);

    /* ct_tensor_permute: out.shape[i] = in.shape[perm[i]]; strides move with the dims, so the
     * (4, 3) transpose has strides (1, 4) and is no longer contiguous. */
    TRY(ct_tensor_permute(ctx, m, (const int[]){1, 0}, &mt));
    EXPECT(shape_is(mt, 2, (const int64_t[]){4, 3}) && strides_are(mt, (const int64_t[]){1, 4}));
    EXPECT(!ct_tensor_is_contiguous(mt) && ct_tensor_is_contiguous(m));
    printf("  view (3, 4) strides (4, 1); permute -> (4, 3) strides (%lld, %lld), contiguous %d\n",
           (long long)ct_tensor_stride(mt)[0], (long long)ct_tensor_stride(mt)[1],
           (int)ct_tensor_is_contiguous(mt));
    /* A view needs compatible strides: flattening the transpose cannot be a view. */
    EXPECT_ERR(ct_tensor_view(ctx, mt, 1, (const int64_t[]){12}, &bad), CT_ERR_SHAPE);

    /* ct_tensor_slice: m[:, 1:4:2] is columns 1 and 3: shape (3, 2), strides (4, 2), starting
     * at storage element 1. ct_tensor_data_ptr points at that first element. */
    TRY(ct_tensor_slice(ctx, m, 1, 1, 4, 2, &sl));
    EXPECT(shape_is(sl, 2, (const int64_t[]){3, 2}) && strides_are(sl, (const int64_t[]){4, 2}));
    EXPECT(ct_tensor_storage_offset(sl) == 1 && (int32_t *)ct_tensor_data_ptr(sl) == bp + 1);
    /* Write through the slice, read through the base: sl[1][1] is storage 1 + 1*4 + 1*2 = 7. */
    int32_t *sp = ct_tensor_data_ptr(sl);
    const int64_t *ss = ct_tensor_stride(sl);
    sp[1 * ss[0] + 1 * ss[1]] = -7;
    EXPECT(bp[7] == -7);
    int32_t slv[6];
    TRY(ct_tensor_to_host(sl, slv, sizeof slv));
    EXPECT(slv[0] == 1 && slv[1] == 3 && slv[2] == 5 && slv[3] == -7 && slv[4] == 9 &&
           slv[5] == 11);
    printf("  slice [:, 1:4:2]: offset %lld strides (%lld, %lld) values %d %d %d %d %d %d\n",
           (long long)ct_tensor_storage_offset(sl), (long long)ss[0], (long long)ss[1], slv[0],
           slv[1], slv[2], slv[3], slv[4], slv[5]);

    /* ct_tensor_expand: row 2 of m, (1, 4), broadcast to (3, 4) with stride 0 on the new rows:
     * three rows, one copy of the data. */
    TRY(ct_tensor_slice(ctx, m, 0, 2, 3, 1, &row));
    TRY(ct_tensor_expand(ctx, row, 2, (const int64_t[]){3, -1}, &ex));
    EXPECT(shape_is(ex, 2, (const int64_t[]){3, 4}) && strides_are(ex, (const int64_t[]){0, 1}));
    EXPECT(ct_tensor_storage_offset(ex) == 8);
    int32_t exv[12];
    TRY(ct_tensor_to_host(ex, exv, sizeof exv));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            EXPECT(exv[i * 4 + j] == 8 + j);
    printf("  expand row 2 (1, 4) -> (3, 4) strides (%lld, %lld)\n",
           (long long)ct_tensor_stride(ex)[0], (long long)ct_tensor_stride(ex)[1]);

    /* ct_tensor_squeeze drops a size-1 dim; ct_tensor_unsqueeze inserts one. */
    TRY(ct_tensor_squeeze(ctx, row, 0, &sq)); /* (1, 4) -> (4,) */
    EXPECT(shape_is(sq, 1, (const int64_t[]){4}) && ct_tensor_data_ptr(sq) == bp + 8);
    TRY(ct_tensor_unsqueeze(ctx, sq, -1, &un)); /* (4,) -> (4, 1) */
    EXPECT(shape_is(un, 2, (const int64_t[]){4, 1}) && ct_tensor_stride(un)[0] == 1);
    printf("  squeeze (1, 4) -> (%lld); unsqueeze(-1) -> (%lld, %lld)\n",
           (long long)ct_tensor_size(sq, 0), (long long)ct_tensor_size(un, 0),
           (long long)ct_tensor_size(un, 1));

    /* ct_tensor_reshape: a view when the strides allow it, otherwise a contiguous copy. */
    TRY(ct_tensor_reshape(ctx, m, 2, (const int64_t[]){2, 6}, &rs_view));
    EXPECT(ct_tensor_data_ptr(rs_view) == bp);
    TRY(ct_tensor_reshape(ctx, mt, 1, (const int64_t[]){12}, &rs_copy));
    EXPECT(ct_tensor_data_ptr(rs_copy) != bp && ct_tensor_is_contiguous(rs_copy));
    int32_t rv[12];
    TRY(ct_tensor_to_host(rs_copy, rv, sizeof rv));
    for (int i = 0; i < 12; i++) { /* transpose order: rv[i] = m[i % 3][i / 3] */
        const int32_t want = (i / 3) + 4 * (i % 3);
        EXPECT(rv[i] == (want == 7 ? -7 : want));
    }
    printf("  reshape: contiguous -> view (same data), transposed -> copy (new data)\n");

    /* ct_tensor_fill_ / ct_tensor_zero_ write in place through any view (Tensor.fill_ / zero_):
     * filling the transposed view mt fills all of base; zero_ on one row leaves the others. */
    TRY(ct_tensor_fill_(ctx, mt, 5));
    TRY(ct_tensor_zero_(ctx, row));
    int32_t fv[12];
    TRY(ct_tensor_to_host(m, fv, sizeof fv));
    for (int i = 0; i < 12; i++)
        EXPECT(fv[i] == (i / 4 == 2 ? 0 : 5));
    EXPECT_ERR(ct_tensor_fill_(ctx, mt, 1e10), CT_ERR_INVALID_ARG); /* int32 overflow */
    printf("  fill_(5) through the transposed view, zero_ of row 2: %d %d %d\n", fv[0], fv[4],
           fv[8]);

    EXPECT(ct_ctx_live_tensors(ctx) == live0 + 10);
    ct_tensor *all[] = {base, m, mt, sl, row, ex, sq, un, rs_view, rs_copy};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    EXPECT(ct_ctx_live_tensors(ctx) == live0);
    return 0;
}

/* ---- device copies and printing ---- */
static int section_device_and_print(ct_ctx *ctx) {
    printf("[to_device and to_string]\n");
    ct_tensor *a, *m, *mt, *c, *bad = NULL;
    TRY(ct_tensor_arange(ctx, CT_INT64, 0, 6, 1, &a));
    TRY(ct_tensor_view(ctx, a, 2, (const int64_t[]){2, 3}, &m));
    TRY(ct_tensor_permute(ctx, m, (const int[]){1, 0}, &mt));

    /* ct_tensor_to_device: a new contiguous tensor on the target device (here cpu -> cpu, so a
     * fresh contiguous copy of the transposed view). */
    TRY(ct_tensor_to_device(ctx, mt, CPU, &c));
    EXPECT(ct_tensor_is_contiguous(c) && ct_tensor_data_ptr(c) != ct_tensor_data_ptr(a));
    EXPECT(shape_is(c, 2, (const int64_t[]){3, 2}));
    const int64_t *cv = ct_tensor_data_ptr(c);
    EXPECT(cv[0] == 0 && cv[1] == 3 && cv[2] == 1 && cv[3] == 4 && cv[4] == 2 && cv[5] == 5);
    EXPECT_ERR(ct_tensor_to_device(ctx, mt, (ct_device){CT_DEVICE_CUDA, 0}, &bad), CT_ERR_DEVICE);

    /* ct_tensor_to_string: torch's print(t) text (malloc'd; free it). int64 shows no dtype=,
     * int32 does; floats print with 4 decimals. */
    char *s = NULL;
    TRY(ct_tensor_to_string(c, &s));
    printf("  %s\n", s);
    EXPECT(strcmp(s, "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])") == 0);
    free(s);
    ct_tensor *f, *i32;
    TRY(ct_tensor_arange(ctx, CT_FLOAT32, 0, 1, 0.25, &f));
    TRY(ct_tensor_to_string(f, &s));
    printf("  %s\n", s);
    EXPECT(strcmp(s, "tensor([0.0000, 0.2500, 0.5000, 0.7500])") == 0);
    free(s);
    TRY(ct_tensor_arange(ctx, CT_INT32, 0, 4, 1, &i32));
    TRY(ct_tensor_to_string(i32, &s));
    printf("  %s\n", s);
    EXPECT(strcmp(s, "tensor([0, 1, 2, 3], dtype=torch.int32)") == 0);
    free(s);

    ct_tensor_release(a), ct_tensor_release(m), ct_tensor_release(mt), ct_tensor_release(c);
    ct_tensor_release(f), ct_tensor_release(i32);
    return 0;
}

/* Build a version 1.0 .npy file in buf: "\x93NUMPY", 1, 0, little-endian uint16 header length,
 * the header dict padded with spaces and ended by '\n' so that the data starts 64-byte aligned,
 * then the raw data. Returns the total size. */
static size_t npy_build(unsigned char *buf, const char *dict, const void *data, size_t nbytes) {
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    size_t hlen = strlen(dict) + 1; /* + '\n' */
    while ((10 + hlen) % 64 != 0)
        hlen++;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memset(buf + 10, ' ', hlen);
    memcpy(buf + 10, dict, strlen(dict));
    buf[10 + hlen - 1] = '\n';
    memcpy(buf + 10 + hlen, data, nbytes);
    return 10 + hlen + nbytes;
}

/* ---- .npy bytes from memory ---- */
static int section_npy(ct_ctx *ctx) {
    printf("[npy_load_buffer]\n");
    unsigned char buf[256];
    ct_tensor *t, *bad = NULL;

    /* C order float32 (2, 3). */
    const float fv[6] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f};
    size_t n = npy_build(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", fv,
                         sizeof fv);
    TRY(ct_npy_load_buffer(ctx, buf, n, &t));
    EXPECT(ct_tensor_dtype(t) == CT_FLOAT32 && shape_is(t, 2, (const int64_t[]){2, 3}));
    EXPECT(memcmp(ct_tensor_data_ptr(t), fv, sizeof fv) == 0);
    printf("  <f4 (2, 3) C order: %zu bytes -> %s (%lld, %lld)\n", n,
           ct_dtype_name(ct_tensor_dtype(t)), (long long)ct_tensor_size(t, 0),
           (long long)ct_tensor_size(t, 1));
    ct_tensor_release(t);

    /* Fortran order int16: the file stores [[1, 2, 3], [4, 5, 6]] column by column. */
    const int16_t iv[6] = {1, 4, 2, 5, 3, 6};
    n = npy_build(buf, "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }", iv, sizeof iv);
    TRY(ct_npy_load_buffer(ctx, buf, n, &t));
    int16_t got[6];
    EXPECT(ct_tensor_dtype(t) == CT_INT16 && shape_is(t, 2, (const int64_t[]){2, 3}));
    TRY(ct_tensor_to_host(t, got, sizeof got));
    for (int i = 0; i < 6; i++)
        EXPECT(got[i] == i + 1);
    printf("  <i2 (2, 3) Fortran order -> C order %d %d %d / %d %d %d\n", got[0], got[1], got[2],
           got[3], got[4], got[5]);
    ct_tensor_release(t);

    /* A 0-d big-endian float64: 2.5 is 0x4004000000000000, stored most significant byte first. */
    const unsigned char be[8] = {0x40, 0x04, 0, 0, 0, 0, 0, 0};
    n = npy_build(buf, "{'descr': '>f8', 'fortran_order': False, 'shape': (), }", be, sizeof be);
    TRY(ct_npy_load_buffer(ctx, buf, n, &t));
    EXPECT(ct_tensor_ndim(t) == 0 && ct_tensor_dtype(t) == CT_FLOAT64 &&
           *(const double *)ct_tensor_data_ptr(t) == 2.5);
    printf("  >f8 0-d -> %g\n", *(const double *)ct_tensor_data_ptr(t));
    ct_tensor_release(t);

    /* complex64 loads as such; uint16 has no ctorch dtype. */
    const float cv[2] = {1, 2};
    n = npy_build(buf, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", cv, sizeof cv);
    TRY(ct_npy_load_buffer(ctx, buf, n, &t));
    EXPECT(ct_tensor_dtype(t) == CT_COMPLEX64 && ((const float *)ct_tensor_data_ptr(t))[1] == 2);
    printf("  <c8 (1,) -> complex64 1+2j\n");
    ct_tensor_release(t);
    n = npy_build(buf, "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", cv, 2);
    EXPECT_ERR(ct_npy_load_buffer(ctx, buf, n, &bad), CT_ERR_DTYPE);
    return 0;
}

/* ---- safetensors bytes from memory ---- */
static int section_safetensors(ct_ctx *ctx) {
    printf("[safetensors_load_buffer]\n");
    /* Three tensors, data in the order b, a, c: b int32 (3,) bytes [0, 12), a float32 (2, 2)
     * [12, 28), c float4_e2m1fn (4,) [28, 30): two bytes, low nibble first. */
    const char *json = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[12,28]},"
                       "\"b\":{\"dtype\":\"I32\",\"shape\":[3],\"data_offsets\":[0,12]},"
                       "\"c\":{\"dtype\":\"F4\",\"shape\":[4],\"data_offsets\":[28,30]},"
                       "\"__metadata__\":{\"format\":\"pt\"}}";
    size_t hlen = strlen(json);
    while (hlen % 8 != 0) /* pad the header with spaces (allowed; keeps the data aligned) */
        hlen++;
    const int32_t bv[3] = {7, -8, 9};
    const float av[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    const unsigned char cv[2] = {0x21, 0x43}; /* codes 1, 2, 3, 4 = 0.5, 1.0, 1.5, 2.0 */
    const size_t total = 8 + hlen + 30;
    unsigned char *buf = malloc(total);
    EXPECT(buf != NULL);
    for (int i = 0; i < 8; i++) /* header length, 8 bytes little-endian */
        buf[i] = (unsigned char)((uint64_t)hlen >> (8 * i));
    memset(buf + 8, ' ', hlen);
    memcpy(buf + 8, json, strlen(json));
    unsigned char *data = buf + 8 + hlen;
    memcpy(data, bv, 12), memcpy(data + 12, av, 16), memcpy(data + 28, cv, 2);

    /* ct_safetensors_load_buffer copies the bytes: the buffer may be reused at once. */
    ct_safetensors *f = NULL;
    TRY(ct_safetensors_load_buffer(ctx, buf, total, &f));
    memset(buf, 0, total);

    /* ct_safetensors_count / ct_safetensors_name: the tensors in the order of their data. */
    EXPECT(ct_safetensors_count(f) == 3);
    EXPECT(strcmp(ct_safetensors_name(f, 0), "b") == 0 &&
           strcmp(ct_safetensors_name(f, 1), "a") == 0 &&
           strcmp(ct_safetensors_name(f, 2), "c") == 0 && ct_safetensors_name(f, 3) == NULL);
    printf("  %d tensors: %s %s %s, format=%s\n", ct_safetensors_count(f),
           ct_safetensors_name(f, 0), ct_safetensors_name(f, 1), ct_safetensors_name(f, 2),
           ct_safetensors_metadata(f, "format"));
    EXPECT(strcmp(ct_safetensors_metadata(f, "format"), "pt") == 0);

    ct_tensor *a, *b, *c;
    TRY(ct_safetensors_get(f, "a", &a));
    TRY(ct_safetensors_get(f, "b", &b));
    TRY(ct_safetensors_get(f, "c", &c));
    EXPECT(shape_is(a, 2, (const int64_t[]){2, 2}) && ct_tensor_dtype(a) == CT_FLOAT32 &&
           memcmp(ct_tensor_data_ptr(a), av, 16) == 0);
    EXPECT(ct_tensor_dtype(b) == CT_INT32 && memcmp(ct_tensor_data_ptr(b), bv, 12) == 0);
    const uint8_t *codes = ct_tensor_data_ptr(c); /* unpacked: one code per byte */
    EXPECT(ct_tensor_dtype(c) == CT_FLOAT4_E2M1FN && ct_tensor_numel(c) == 4 && codes[0] == 1 &&
           codes[1] == 2 && codes[2] == 3 && codes[3] == 4);
    printf("  a (2, 2) f32 %g..%g, b i32 %d %d %d, c f4 codes %d %d %d %d\n", av[0], av[3], bv[0],
           bv[1], bv[2], codes[0], codes[1], codes[2], codes[3]);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c);
    ct_safetensors_free(f);

    /* A header length pointing past the end of the bytes is malformed. */
    ct_safetensors *g = NULL;
    memset(buf, 0, 16);
    buf[0] = 0xff;
    EXPECT_ERR(ct_safetensors_load_buffer(ctx, buf, 16, &g), CT_ERR_FORMAT);
    free(buf);
    return 0;
}

/* A DLPack producer of our own (as NumPy or PyTorch would be) to see its deleter run. */
static int producer_deleted;
static int64_t producer_shape[2] = {2, 2};
static float producer_data[4] = {1, 2, 3, 4};
static void producer_deleter(ct_dl_managed_tensor *self) {
    (void)self;
    producer_deleted++;
}
static void producer_deleter_v(ct_dl_managed_tensor_versioned *self) {
    (void)self;
    producer_deleted++;
}

/* ---- DLPack: zero-copy exchange ---- */
static int section_dlpack(ct_ctx *ctx) {
    printf("[dlpack]\n");
    const int64_t live0 = ct_ctx_live_tensors(ctx);
    ct_tensor *base, *m, *sl, *back, *back_v, *mine, *bad = NULL;
    TRY(ct_tensor_arange(ctx, CT_INT32, 0, 12, 1, &base));
    TRY(ct_tensor_view(ctx, base, 2, (const int64_t[]){3, 4}, &m));
    TRY(ct_tensor_slice(ctx, m, 1, 1, 4, 2, &sl)); /* (3, 2), strides (4, 2), offset 1 */

    /* ct_tensor_to_dlpack: export any strides without a copy, as a legacy DLManagedTensor that
     * holds a reference to the tensor until a consumer calls its deleter. */
    ct_dl_managed_tensor *dl = NULL;
    TRY(ct_tensor_to_dlpack(ctx, sl, &dl));
    const ct_dl_tensor *d = &dl->dl_tensor;
    EXPECT(d->device.device_type == 1 && d->device.device_id == 0 && d->ndim == 2);
    EXPECT(d->dtype.code == 0 && d->dtype.bits == 32 && d->dtype.lanes == 1); /* int32 */
    EXPECT(d->shape[0] == 3 && d->shape[1] == 2 && d->strides && d->strides[0] == 4 &&
           d->strides[1] == 2);
    EXPECT((char *)d->data + d->byte_offset == (char *)ct_tensor_data_ptr(sl));
    printf("  to_dlpack: int32 (%lld, %lld) strides (%lld, %lld), same memory as the slice\n",
           (long long)d->shape[0], (long long)d->shape[1], (long long)d->strides[0],
           (long long)d->strides[1]);

    /* ct_tensor_from_dlpack: import (here our own export: a round trip). ctorch now owns dl and
     * calls its deleter when the last reference to `back` goes. Same memory, same strides. */
    TRY(ct_tensor_from_dlpack(ctx, dl, &back));
    EXPECT(ct_tensor_data_ptr(back) == ct_tensor_data_ptr(sl));
    EXPECT(shape_is(back, 2, (const int64_t[]){3, 2}) &&
           strides_are(back, (const int64_t[]){4, 2}));
    ((int32_t *)ct_tensor_data_ptr(back))[0] = 100;          /* write through the import ... */
    EXPECT(((int32_t *)ct_tensor_data_ptr(base))[1] == 100); /* ... read through the origin */

    /* ct_tensor_to_dlpack_versioned / ct_tensor_from_dlpack_versioned: the DLPack 1.0 struct
     * (version 1.0, flags 0: writable, not a copy). */
    ct_dl_managed_tensor_versioned *dlv = NULL;
    TRY(ct_tensor_to_dlpack_versioned(ctx, m, &dlv));
    EXPECT(dlv->version_major == 1 && dlv->version_minor == 0 && dlv->flags == 0);
    EXPECT(dlv->dl_tensor.ndim == 2 && dlv->dl_tensor.shape[0] == 3 &&
           dlv->dl_tensor.shape[1] == 4);
    TRY(ct_tensor_from_dlpack_versioned(ctx, dlv, &back_v));
    EXPECT(ct_tensor_data_ptr(back_v) == ct_tensor_data_ptr(base));
    printf("  versioned: DLPack %u.%u, flags %llu, round trip shares memory\n", dlv->version_major,
           dlv->version_minor, (unsigned long long)dlv->flags);

    /* Releasing every ctorch handle runs the exports' deleters, which drop their references:
     * the live count returns to where it was. */
    ct_tensor_release(back), ct_tensor_release(back_v);
    ct_tensor_release(sl), ct_tensor_release(m), ct_tensor_release(base);
    EXPECT(ct_ctx_live_tensors(ctx) == live0);

    /* Import from a foreign producer: zero copy, and its deleter runs once, at the last release
     * (a view keeps the memory alive). */
    ct_dl_managed_tensor prod = {.dl_tensor = {.data = producer_data,
                                               .device = {1, 0},
                                               .ndim = 2,
                                               .dtype = {2, 32, 1}, /* float32 */
                                               .shape = producer_shape,
                                               .strides = NULL},
                                 .deleter = producer_deleter};
    producer_deleted = 0;
    ct_tensor *mine_t;
    TRY(ct_tensor_from_dlpack(ctx, &prod, &mine));
    EXPECT((float *)ct_tensor_data_ptr(mine) == producer_data);
    TRY(ct_tensor_permute(ctx, mine, (const int[]){1, 0}, &mine_t));
    ct_tensor_release(mine);
    EXPECT(producer_deleted == 0); /* the view still uses the memory */
    EXPECT(((float *)ct_tensor_data_ptr(mine_t))[ct_tensor_stride(mine_t)[1]] == 3.0f);
    ct_tensor_release(mine_t);
    EXPECT(producer_deleted == 1);
    printf("  foreign producer: zero copy, deleter ran %d time at the last release\n",
           producer_deleted);

    /* A read-only versioned tensor is refused (ctorch tensors are writable); on failure the
     * caller still owns it and calls its deleter itself. */
    ct_dl_managed_tensor_versioned ro = {.version_major = 1,
                                         .deleter = producer_deleter_v,
                                         .flags = CT_DLPACK_FLAG_READ_ONLY,
                                         .dl_tensor = prod.dl_tensor};
    EXPECT_ERR(ct_tensor_from_dlpack_versioned(ctx, &ro, &bad), CT_ERR_UNSUPPORTED);
    EXPECT(producer_deleted == 1);
    ro.deleter(&ro);
    EXPECT(producer_deleted == 2);
    return 0;
}

/* ---- the context's caching allocator ---- */
static int section_memory(ct_ctx *ctx, ct_ctx *dbg) {
    printf("[caching allocator]\n");
    if (ct_ctx_debug(ctx)) { /* CT_DEBUG=1: no caching allocator to show */
        printf("  skipped: debug mode has no caching allocator\n");
        return 0;
    }
    /* ct_memory_stats: torch.cuda.memory_stats' counters (set .size first). A 2 MiB tensor goes
     * to the large pool (requests above 1 MiB); sizes are rounded up to 512 B. */
    ct_mem_stats s0 = {.size = sizeof s0}, s1 = {.size = sizeof s1}, s2 = {.size = sizeof s2};
    TRY(ct_memory_stats(ctx, CPU, &s0));
    const int64_t nbytes = 2 << 20;
    ct_tensor *big;
    TRY(ct_tensor_empty(ctx, CT_FLOAT32, 1, (const int64_t[]){nbytes / 4}, &big));
    TRY(ct_memory_stats(ctx, CPU, &s1));
    const int64_t grew = s1.allocated_bytes[CT_MEM_LARGE_POOL].current -
                         s0.allocated_bytes[CT_MEM_LARGE_POOL].current;
    EXPECT(grew >= nbytes && grew % 512 == 0);
    EXPECT(s1.requested_bytes[CT_MEM_ALL].current - s0.requested_bytes[CT_MEM_ALL].current >=
           nbytes);
    EXPECT(s1.allocated_bytes[CT_MEM_ALL].peak >= s1.allocated_bytes[CT_MEM_ALL].current);
    EXPECT(s1.reserved_bytes[CT_MEM_ALL].current >= s1.allocated_bytes[CT_MEM_ALL].current);
    /* ct_ctx_cached_bytes: reserved but free = reserved - allocated. */
    EXPECT((int64_t)ct_ctx_cached_bytes(ctx) ==
           s1.reserved_bytes[CT_MEM_ALL].current - s1.allocated_bytes[CT_MEM_ALL].current);
    /* (its data plus the tensor's header, which shares the block, rounded up to 512 B) */
    printf("  a 2 MiB tensor adds %lld allocated bytes to the large pool\n", (long long)grew);

    /* ct_memory_snapshot: JSON of every segment and block; its totals agree with the stats and
     * it lists one "active_allocated" block per active allocation. */
    char dir[] = "/tmp/ct_api_core_XXXXXX", path[64];
    EXPECT(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/snapshot.json", dir);
    TRY(ct_memory_snapshot(ctx, CPU, path));
    FILE *fp = fopen(path, "rb");
    EXPECT(fp != NULL);
    fseek(fp, 0, SEEK_END);
    const long flen = ftell(fp);
    rewind(fp);
    char *json = malloc((size_t)flen + 1);
    EXPECT(json && fread(json, 1, (size_t)flen, fp) == (size_t)flen);
    json[flen] = '\0';
    fclose(fp);
    remove(path);
    rmdir(dir);
    long long snap_alloc = -1;
    const char *tot = strstr(json, "\"allocated_bytes\": ");
    if (tot) sscanf(tot, "\"allocated_bytes\": %lld", &snap_alloc);
    int64_t active_blocks = 0;
    for (const char *p = json; (p = strstr(p, "\"active_allocated\"")) != NULL; p++)
        active_blocks++;
    const bool well_formed = strncmp(json, "{\"segments\": [", 14) == 0;
    free(json);
    EXPECT(well_formed);
    EXPECT(snap_alloc == s1.allocated_bytes[CT_MEM_ALL].current);
    EXPECT(active_blocks == s1.active[CT_MEM_ALL].current);
    printf("  snapshot: %lld blocks in use, totals match the stats\n", (long long)active_blocks);

    /* ct_memory_summary: the same counters as torch.cuda.memory_summary's table. */
    char *sum = NULL;
    TRY(ct_memory_summary(ctx, CPU, &sum));
    int lines = 0;
    for (const char *p = sum; *p; p++)
        lines += *p == '\n';
    EXPECT(strstr(sum, "Allocated memory") && strstr(sum, "Reserved memory") && lines > 5);
    printf("  summary: a %d-line table\n", lines);
    free(sum);

    /* Releasing the tensor gives its block back to the cache (not to the OS). */
    ct_tensor_release(big);
    TRY(ct_memory_stats(ctx, CPU, &s2));
    EXPECT(s2.allocated_bytes[CT_MEM_LARGE_POOL].current ==
           s0.allocated_bytes[CT_MEM_LARGE_POOL].current);
    EXPECT(s2.reserved_bytes[CT_MEM_LARGE_POOL].current >= nbytes);

    /* ct_memory_reset_peak: peaks become the current values. */
    TRY(ct_memory_reset_peak(ctx, CPU));
    TRY(ct_memory_stats(ctx, CPU, &s2));
    EXPECT(s2.allocated_bytes[CT_MEM_ALL].peak == s2.allocated_bytes[CT_MEM_ALL].current);

    /* ct_empty_cache: free segments go back to the OS; no large block is in use, so the large
     * pool then reserves nothing beyond what is allocated. */
    const size_t cached_before = ct_ctx_cached_bytes(ctx);
    TRY(ct_empty_cache(ctx));
    TRY(ct_memory_stats(ctx, CPU, &s2));
    EXPECT(s2.reserved_bytes[CT_MEM_LARGE_POOL].current ==
           s2.allocated_bytes[CT_MEM_LARGE_POOL].current);
    EXPECT(ct_ctx_cached_bytes(ctx) < cached_before);
    printf("  empty_cache: cached %zu -> %zu bytes\n", cached_before, ct_ctx_cached_bytes(ctx));
    /* ct_ctx_empty_cache: the same call without a status. */
    ct_ctx_empty_cache(ctx);
    EXPECT(ct_ctx_cached_bytes(ctx) <= cached_before);

    /* A debug-mode context has no caching allocator: the statistics are unsupported there. */
    ct_ctx *keep = ctx;
    ctx = dbg; /* EXPECT_ERR reads the message from ctx */
    EXPECT_ERR(ct_memory_stats(ctx, CPU, &s2), CT_ERR_UNSUPPORTED);
    ctx = keep;
    return 0;
}

/* A device's segment calls for the allocator: its "device memory" is page-aligned host memory,
 * and we count the segments mapped. */
static long segments;
static void *seg_map(void *user, size_t n) {
    (void)user;
    void *p = aligned_alloc(4096, n);
    segments += p != NULL;
    return p;
}
static void seg_unmap(void *user, void *p, size_t n) {
    (void)user, (void)n;
    segments--;
    free(p);
}

/* ---- the caching allocator for a device backend ---- */
static int section_device_allocator(ct_ctx *ctx) {
    printf("[device caching allocator]\n");
    const ct_vm_ops vm = {.size = sizeof vm, .map = seg_map, .unmap = seg_unmap};
    ct_caching_allocator *a = NULL;
    TRY(ct_caching_allocator_create(ctx, &vm, "memory_limit_mb:8", &a));

    /* ct_caching_allocator_alloc_stream: each stream has its own pools. A 1000 B block on stream
     * 0 maps one 2 MiB small segment; freed, it is cached for stream 0 only, so stream 5 maps a
     * segment of its own, and stream 0 reuses its cached block. */
    void *p0 = NULL, *p5 = NULL, *again = NULL, *huge = NULL;
    TRY(ct_caching_allocator_alloc_stream(a, 0, 1000, &p0));
    EXPECT(segments == 1);
    ct_caching_allocator_free(a, p0);
    TRY(ct_caching_allocator_alloc_stream(a, 5, 1000, &p5));
    EXPECT(segments == 2 && p5 != p0);
    TRY(ct_caching_allocator_alloc_stream(a, 0, 1000, &again));
    EXPECT(segments == 2 && again == p0);
    printf("  streams 0 and 5: %ld segments, stream 0 reuses its block\n", segments);

    /* ct_caching_allocator_oom_message: why the last allocation failed ("" before any). 9 MiB
     * does not fit the 8 MiB this "device" has. */
    EXPECT(strcmp(ct_caching_allocator_oom_message(a), "") == 0);
    EXPECT(ct_caching_allocator_alloc_stream(a, 0, 9u << 20, &huge) == CT_ERR_OOM && !huge);
    const char *why = ct_caching_allocator_oom_message(a);
    EXPECT(strstr(why, "8.00 MiB limit") != NULL);
    printf("  error (expected): %s\n", why);

    ct_caching_allocator_free(a, p5);
    ct_caching_allocator_free(a, again);
    ct_caching_allocator_destroy(a); /* unmaps the free segments */
    EXPECT(segments == 0);
    return 0;
}

int main(void) {
    ct_ctx *ctx = NULL, *dbg = NULL;
    ct_ctx_options o = {.size = sizeof o, .num_threads = 2};
    ct_ctx_options od = {.size = sizeof od, .num_threads = 1, .debug = true};
    char msg[256];
    if (ct_ctx_create_ex(&o, &ctx, msg, sizeof msg) != CT_OK ||
        ct_ctx_create_ex(&od, &dbg, msg, sizeof msg) != CT_OK) {
        fprintf(stderr, "ct_ctx_create: %s\n", msg);
        ct_ctx_free(ctx);
        return 1;
    }
    int rc = section_dtypes() || section_context(ctx, dbg) || section_creation(ctx) ||
             section_views(ctx) || section_device_and_print(ctx) || section_npy(ctx) ||
             section_safetensors(ctx) || section_dlpack(ctx) || section_memory(ctx, dbg) ||
             section_device_allocator(ctx);
    if (!rc && (ct_ctx_live_tensors(ctx) != 0 || ct_ctx_live_tensors(dbg) != 0)) {
        fprintf(stderr, "tensors left alive\n");
        rc = 1;
    }
    ct_ctx_free(dbg);
    ct_ctx_free(ctx);
    if (!rc) printf("all checks passed\n");
    return rc;
}

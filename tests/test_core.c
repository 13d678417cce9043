/* Core: status strings, context options and errors, the dtype table and promotion, f16/bf16
 * conversions checked exhaustively against a nearest-value search over every code. */
#include "test_util.h"

TEST(status_strings) {
    CHECK(strcmp(ct_status_str(CT_OK), "ok") == 0);
    CHECK(strcmp(ct_status_str(CT_ERR_SHAPE), "shape mismatch") == 0);
    CHECK(strcmp(ct_status_str(CT_ERR_OOM), "out of memory") == 0);
    CHECK(strcmp(ct_status_str((ct_status)1234), "unknown status") == 0);
    const ct_status all[] = {CT_OK,         CT_ERR_INVALID_ARG, CT_ERR_SHAPE,
                             CT_ERR_DTYPE,  CT_ERR_OOM,         CT_ERR_UNSUPPORTED,
                             CT_ERR_FORMAT, CT_ERR_IO,          CT_ERR_STATE};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        for (size_t j = i + 1; j < sizeof all / sizeof all[0]; j++)
            CHECK(strcmp(ct_status_str(all[i]), ct_status_str(all[j])) != 0);
    CHECK(strcmp(ct_version(), "0.1.0") == 0);
}

static int log_calls;
static void log_fn(void *user, ct_log_level lvl, const char *msg) {
    (void)lvl;
    (*(int *)user)++;
    CHECK(strstr(msg, "ctorch") != NULL);
}

TEST(ctx_options) {
    ct_ctx *ctx = NULL;
    CHECK_ST(ct_ctx_create(NULL, NULL), CT_ERR_INVALID_ARG);
    ct_ctx_options o = {.size = sizeof o, .num_threads = -1};
    CHECK_ST(ct_ctx_create(&o, &ctx), CT_ERR_INVALID_ARG);
    CHECK(ctx == NULL);
    o = (ct_ctx_options){.size = sizeof o + 64};
    CHECK_ST(ct_ctx_create(&o, &ctx), CT_ERR_INVALID_ARG);
    o = (ct_ctx_options){.size = sizeof o, .cpu_isa = "sse9"};
    CHECK_ST(ct_ctx_create(&o, &ctx), CT_ERR_INVALID_ARG);
    o = (ct_ctx_options){.size = sizeof o,
                         .cpu_isa = "ref",
                         .num_threads = 1,
                         .log_fn = log_fn,
                         .log_user = &log_calls,
                         .log_level = CT_LOG_INFO};
    CHECK_OK(ct_ctx_create(&o, &ctx));
    CHECK(log_calls == 1);
    CHECK(strcmp(ct_ctx_cpu_isa(ctx), "ref") == 0);
    CHECK(ct_ctx_num_threads(ctx) == 1);
    CHECK(strcmp(ct_ctx_last_error(ctx), "") == 0);
    CHECK(ct_backend_count(ctx) == 1 && strcmp(ct_backend_name(ctx, 0), "cpu") == 0);
    ct_ctx_free(ctx);
    ct_ctx_free(NULL);
    /* forcing an ISA the CPU lacks is an error, forcing a supported one works */
    const char *isas[] = {"ref", "avx2", "avx512"};
    for (int i = 0; i < 3; i++) {
        o = (ct_ctx_options){.size = sizeof o, .cpu_isa = isas[i]};
        ct_status st = ct_ctx_create(&o, &ctx);
        CHECK_ST(st, ct_cpu_isa_supported(isas[i]) ? CT_OK : CT_ERR_UNSUPPORTED);
        if (st == CT_OK) ct_ctx_free(ctx);
    }
    CHECK(ct_cpu_isa_supported("ref"));
    CHECK(!ct_cpu_isa_supported("bogus"));
    CHECK(ct_blas_info() && strstr(ct_blas_info(), "OpenBLAS"));
    /* an old, smaller options struct is accepted (size prefix) */
    o = (ct_ctx_options){.size = offsetof(ct_ctx_options, log_fn), .num_threads = 2};
    CHECK_OK(ct_ctx_create(&o, &ctx));
    CHECK(ct_ctx_num_threads(ctx) == 2);
    ct_ctx_free(ctx);
}

/* A failed create explains itself through ct_ctx_create_ex; ISA names are case-insensitive;
 * options are validated (thread count bound). */
TEST(ctx_create_messages) {
    ct_ctx *ctx = NULL;
    char msg[256];
    ct_ctx_options o = {.size = sizeof o, .cpu_isa = "sse9"};
    CHECK_ST(ct_ctx_create_ex(&o, &ctx, msg, sizeof msg), CT_ERR_INVALID_ARG);
    CHECK_MSG(strstr(msg, "'sse9'") && strstr(msg, "options.cpu_isa"), "%s", msg);
    o = (ct_ctx_options){.size = sizeof o, .num_threads = 100000};
    CHECK_ST(ct_ctx_create_ex(&o, &ctx, msg, sizeof msg), CT_ERR_INVALID_ARG);
    CHECK_MSG(strstr(msg, "100000") && strstr(msg, "1024"), "%s", msg);
    o = (ct_ctx_options){.size = sizeof o, .num_threads = CT_MAX_THREADS};
    CHECK_OK(ct_ctx_create_ex(&o, &ctx, msg, sizeof msg));
    CHECK(msg[0] == '\0');
    ct_ctx_free(ctx);
    o = (ct_ctx_options){.size = 0};
    CHECK_ST(ct_ctx_create_ex(&o, &ctx, msg, sizeof msg), CT_ERR_INVALID_ARG);
    CHECK_MSG(strstr(msg, "size"), "%s", msg);
    o = (ct_ctx_options){.size = sizeof o, .log_level = (ct_log_level)9};
    CHECK_ST(ct_ctx_create_ex(&o, &ctx, msg, sizeof msg), CT_ERR_INVALID_ARG);
    /* a truncating buffer stays NUL-terminated; NULL buffer is fine */
    char tiny[8];
    o = (ct_ctx_options){.size = sizeof o, .cpu_isa = "sse9"};
    CHECK_ST(ct_ctx_create_ex(&o, &ctx, tiny, sizeof tiny), CT_ERR_INVALID_ARG);
    CHECK(strlen(tiny) == 7);
    CHECK_ST(ct_ctx_create_ex(&o, &ctx, NULL, 0), CT_ERR_INVALID_ARG);
    const char *names[][2] = {{"REF", "ref"}, {"Avx2", "avx2"}, {"AVX512", "avx512"}};
    for (int i = 0; i < 3; i++) {
        CHECK(ct_cpu_isa_supported(names[i][0]) == ct_cpu_isa_supported(names[i][1]));
        o = (ct_ctx_options){.size = sizeof o, .cpu_isa = names[i][0]};
        ct_status st = ct_ctx_create_ex(&o, &ctx, msg, sizeof msg);
        if (ct_cpu_isa_supported(names[i][1])) {
            CHECK_OK(st);
            if (st == CT_OK) CHECK(strcmp(ct_ctx_cpu_isa(ctx), names[i][1]) == 0);
            ct_ctx_free(ctx);
        } else {
            CHECK_ST(st, CT_ERR_UNSUPPORTED);
            CHECK_MSG(strstr(msg, names[i][1]) && strstr(msg, ct_cpu_best_isa()), "%s", msg);
        }
    }
    CHECK(!ct_cpu_isa_supported(NULL));
    CHECK(strcmp(ct_ctx_cpu_isa(NULL), "") == 0 && ct_ctx_num_threads(NULL) == 0);
}

TEST(dtype_table) {
    struct {
        ct_dtype dt;
        const char *name, *st;
        int bits;
    } want[] = {{CT_BOOL, "bool", "BOOL", 8},
                {CT_UINT8, "uint8", "U8", 8},
                {CT_INT8, "int8", "I8", 8},
                {CT_INT16, "int16", "I16", 16},
                {CT_INT32, "int32", "I32", 32},
                {CT_INT64, "int64", "I64", 64},
                {CT_FLOAT16, "float16", "F16", 16},
                {CT_BFLOAT16, "bfloat16", "BF16", 16},
                {CT_FLOAT32, "float32", "F32", 32},
                {CT_FLOAT64, "float64", "F64", 64},
                {CT_FLOAT8_E4M3FN, "float8_e4m3fn", "F8_E4M3", 8},
                {CT_FLOAT8_E5M2, "float8_e5m2", "F8_E5M2", 8},
                {CT_FLOAT6_E3M2FN, "float6_e3m2fn", "F6_E3M2", 6},
                {CT_FLOAT6_E2M3FN, "float6_e2m3fn", "F6_E2M3", 6},
                {CT_FLOAT4_E2M1FN, "float4_e2m1fn", "F4", 4},
                {CT_FLOAT8_E8M0FNU, "float8_e8m0fnu", "F8_E8M0", 8}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const ct_dtype_info *in = ct_dtype_get_info(want[i].dt);
        CHECK(in && in->dtype == want[i].dt);
        CHECK(strcmp(in->name, want[i].name) == 0);
        CHECK(strcmp(in->safetensors_name, want[i].st) == 0);
        CHECK(in->bits == want[i].bits);
        ct_dtype back;
        CHECK_OK(ct_dtype_from_name(want[i].name, &back));
        CHECK(back == want[i].dt);
        back = CT_DTYPE_COUNT;
        CHECK_OK(ct_dtype_from_name(want[i].st, &back)); /* safetensors name */
        CHECK_MSG(back == want[i].dt, "%s", want[i].st);
    }
    ct_dtype d;
    CHECK_OK(ct_dtype_from_name("torch.bfloat16", &d));
    CHECK(d == CT_BFLOAT16);
    CHECK_OK(ct_dtype_from_name("f32", &d));
    CHECK(d == CT_FLOAT32);
    CHECK_ST(ct_dtype_from_name("float128", &d), CT_ERR_INVALID_ARG);
    CHECK(ct_dtype_get_info((ct_dtype)-1) == NULL && ct_dtype_get_info(CT_DTYPE_COUNT) == NULL);
    CHECK(strcmp(ct_dtype_name((ct_dtype)77), "invalid") == 0);
    CHECK(ct_dtype_size(CT_INT64) == 8 && ct_dtype_size(CT_FLOAT4_E2M1FN) == 1);
    CHECK(ct_dtype_is_floating(CT_BFLOAT16) && !ct_dtype_is_floating(CT_INT8));
}

TEST(promotion_matches_torch) {
    /* spot values of torch.promote_types */
    struct {
        ct_dtype a, b, r;
    } t[] = {{CT_UINT8, CT_INT8, CT_INT16},         {CT_BOOL, CT_INT32, CT_INT32},
             {CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32}, {CT_INT64, CT_FLOAT16, CT_FLOAT16},
             {CT_FLOAT32, CT_FLOAT64, CT_FLOAT64},  {CT_UINT8, CT_UINT8, CT_UINT8},
             {CT_INT16, CT_UINT8, CT_INT16},        {CT_BFLOAT16, CT_INT64, CT_BFLOAT16}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        ct_dtype r, r2;
        CHECK_OK(ct_dtype_promote(t[i].a, t[i].b, &r));
        CHECK_OK(ct_dtype_promote(t[i].b, t[i].a, &r2));
        CHECK(r == t[i].r && r2 == t[i].r);
    }
    ct_dtype r;
    CHECK_ST(ct_dtype_promote(CT_FLOAT8_E4M3FN, CT_FLOAT32, &r), CT_ERR_DTYPE);
}

/* Independent f16 decoder from the IEEE definition. */
static double f16_value(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp(m, -24);
    else
        v = ldexp(1024 + m, e - 25);
    return s ? -v : v;
}

TEST(f16_exhaustive) {
    /* decode: every code */
    int bad = 0;
    for (uint32_t c = 0; c < 65536; c++) {
        double want = f16_value((uint16_t)c);
        float got = ct_f16_to_f32((uint16_t)c);
        if (isnan(want) ? !isnan(got) : (double)got != want) bad++;
    }
    CHECK_MSG(bad == 0, "%d f16 codes decode wrongly", bad);
    /* encode: each finite positive code's value, the midpoints to its neighbour and +-1 f32 ulp */
    bad = 0;
    for (uint32_t c = 0; c < 0x7c00; c++) {
        double v = f16_value((uint16_t)c),
               next = c + 1 < 0x7c00 ? f16_value((uint16_t)(c + 1)) : 65536.0;
        double mid = (v + next) / 2;
        float fm = (float)mid; /* midpoints are exact in f32 */
        if (ct_f32_to_f16((float)v) != c) bad++;
        if (ct_f32_to_f16(-(float)v) != (c | 0x8000)) bad++;
        uint16_t even = (c & 1) ? (uint16_t)(c + 1) : (uint16_t)c;
        if (c + 1 == 0x7c00) even = 0x7c00; /* 65520, the midpoint above the max, rounds to inf */
        if (ct_f32_to_f16(fm) != even) bad++;
        if (ct_f32_to_f16(nextafterf(fm, 0)) != c) bad++;
        if (ct_f32_to_f16(nextafterf(fm, INFINITY)) != c + 1) bad++;
    }
    CHECK_MSG(bad == 0, "%d f16 encodings differ from round-to-nearest-even", bad);
    CHECK(ct_f32_to_f16(INFINITY) == 0x7c00 && ct_f32_to_f16(-INFINITY) == 0xfc00);
    CHECK(ct_f32_to_f16(1e9f) == 0x7c00);
    uint16_t qn = ct_f32_to_f16(NAN);
    CHECK((qn & 0x7c00) == 0x7c00 && (qn & 0x3ff) != 0);
    CHECK(ct_f32_to_f16(1e-9f) == 0); /* below half the smallest subnormal */
}

TEST(bf16_exhaustive) {
    int bad = 0;
    for (uint32_t c = 0; c < 65536; c++) {
        uint32_t bits = c << 16;
        float want;
        memcpy(&want, &bits, 4);
        float got = ct_bf16_to_f32((uint16_t)c);
        if (isnan(want) ? !isnan(got) : got != want) bad++;
    }
    CHECK(bad == 0);
    /* rounding: for every finite positive code, the midpoint and its neighbours */
    bad = 0;
    for (uint32_t c = 0; c < 0x7f80; c++) {
        uint32_t mb = (c << 16) | 0x8000; /* exact midpoint between c and c+1 */
        float mid;
        memcpy(&mid, &mb, 4);
        uint16_t even = (c & 1) ? (uint16_t)(c + 1) : (uint16_t)c;
        if (ct_f32_to_bf16(mid) != even) bad++;
        if (ct_f32_to_bf16(nextafterf(mid, 0)) != c) bad++;
        if (ct_f32_to_bf16(nextafterf(mid, INFINITY)) != c + 1) bad++;
    }
    CHECK_MSG(bad == 0, "%d bf16 roundings wrong", bad);
    uint16_t qn = ct_f32_to_bf16(NAN);
    CHECK((qn & 0x7f80) == 0x7f80 && (qn & 0x7f) != 0);
    CHECK(ct_f32_to_bf16(INFINITY) == 0x7f80);
}

int main(void) {
    RUN(status_strings);
    RUN(ctx_options);
    RUN(ctx_create_messages);
    RUN(dtype_table);
    RUN(promotion_matches_torch);
    RUN(f16_exhaustive);
    RUN(bf16_exhaustive);
    return ct_test_end();
}

/* The dtype table, promotion and the public f16/bf16 conversions. */
#include "core/internal.h"
#include "ctorch/dtype.h"
#include "dtype/half.h"

#include <string.h>

static const ct_dtype_info ct__dtype_table[CT_DTYPE_COUNT] = {
    {CT_BOOL, "bool", "BOOL", 8, 1, CT_KIND_BOOL},
    {CT_UINT8, "uint8", "U8", 8, 1, CT_KIND_UINT},
    {CT_INT8, "int8", "I8", 8, 1, CT_KIND_INT},
    {CT_INT16, "int16", "I16", 16, 2, CT_KIND_INT},
    {CT_INT32, "int32", "I32", 32, 4, CT_KIND_INT},
    {CT_INT64, "int64", "I64", 64, 8, CT_KIND_INT},
    {CT_FLOAT16, "float16", "F16", 16, 2, CT_KIND_FLOAT},
    {CT_BFLOAT16, "bfloat16", "BF16", 16, 2, CT_KIND_FLOAT},
    {CT_FLOAT32, "float32", "F32", 32, 4, CT_KIND_FLOAT},
    {CT_FLOAT64, "float64", "F64", 64, 8, CT_KIND_FLOAT},
    {CT_FLOAT8_E4M3FN, "float8_e4m3fn", "F8_E4M3", 8, 1, CT_KIND_FLOAT},
    {CT_FLOAT8_E5M2, "float8_e5m2", "F8_E5M2", 8, 1, CT_KIND_FLOAT},
    {CT_FLOAT6_E3M2FN, "float6_e3m2fn", "F6_E3M2", 6, 1, CT_KIND_FLOAT},
    {CT_FLOAT6_E2M3FN, "float6_e2m3fn", "F6_E2M3", 6, 1, CT_KIND_FLOAT},
    {CT_FLOAT4_E2M1FN, "float4_e2m1fn", "F4", 4, 1, CT_KIND_FLOAT},
    {CT_FLOAT8_E8M0FNU, "float8_e8m0fnu", "F8_E8M0", 8, 1, CT_KIND_SCALE},
    {CT_COMPLEX64, "complex64", "C64", 64, 8, CT_KIND_COMPLEX},
    {CT_COMPLEX128, "complex128", NULL, 128, 16, CT_KIND_COMPLEX},
};

const ct_dtype_info *ct_dtype_get_info(ct_dtype dt) {
    if ((int)dt < 0 || dt >= CT_DTYPE_COUNT) return NULL;
    return &ct__dtype_table[dt];
}

const char *ct_dtype_name(ct_dtype dt) {
    const ct_dtype_info *i = ct_dtype_get_info(dt);
    return i ? i->name : "invalid";
}

size_t ct_dtype_size(ct_dtype dt) {
    const ct_dtype_info *i = ct_dtype_get_info(dt);
    return i ? (size_t)i->itemsize : 0;
}

ct_status ct_dtype_from_name(const char *name, ct_dtype *out) {
    static const struct {
        const char *s;
        ct_dtype dt;
    } alias[] = {{"f16", CT_FLOAT16},      {"half", CT_FLOAT16},  {"bf16", CT_BFLOAT16},
                 {"f32", CT_FLOAT32},      {"float", CT_FLOAT32}, {"f64", CT_FLOAT64},
                 {"double", CT_FLOAT64},   {"i32", CT_INT32},     {"int", CT_INT32},
                 {"i64", CT_INT64},        {"long", CT_INT64},    {"i8", CT_INT8},
                 {"u8", CT_UINT8},         {"i16", CT_INT16},     {"short", CT_INT16},
                 {"cfloat", CT_COMPLEX64}, {"c64", CT_COMPLEX64}, {"cdouble", CT_COMPLEX128},
                 {"c128", CT_COMPLEX128}};
    if (!name || !out) return CT_ERR_INVALID_ARG;
    if (strncmp(name, "torch.", 6) == 0) name += 6;
    for (int i = 0; i < CT_DTYPE_COUNT; i++)
        if (strcmp(name, ct__dtype_table[i].name) == 0) {
            *out = (ct_dtype)i;
            return CT_OK;
        }
    for (int i = 0; i < CT_DTYPE_COUNT; i++) /* safetensors names: "F32", "BF16", "F8_E4M3" */
        if (ct__dtype_table[i].safetensors_name &&
            strcmp(name, ct__dtype_table[i].safetensors_name) == 0) {
            *out = (ct_dtype)i;
            return CT_OK;
        }
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (strcmp(name, alias[i].s) == 0) {
            *out = alias[i].dt;
            return CT_OK;
        }
    return CT_ERR_INVALID_ARG;
}

bool ct_dtype_is_floating(ct_dtype dt) {
    const ct_dtype_info *i = ct_dtype_get_info(dt);
    return i && (i->kind == CT_KIND_FLOAT || i->kind == CT_KIND_SCALE);
}

bool ct_dtype_is_complex(ct_dtype dt) { return dt == CT_COMPLEX64 || dt == CT_COMPLEX128; }

ct_dtype ct_dtype_to_real(ct_dtype dt) {
    return dt == CT_COMPLEX64 ? CT_FLOAT32 : dt == CT_COMPLEX128 ? CT_FLOAT64 : dt;
}

ct_dtype ct_dtype_to_complex(ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT16:
    case CT_BFLOAT16:
    case CT_FLOAT32:
    case CT_COMPLEX64: return CT_COMPLEX64;
    case CT_FLOAT64:
    case CT_COMPLEX128: return CT_COMPLEX128;
    default: return CT_DTYPE_COUNT;
    }
}

ct_status ct_dtype_promote(ct_dtype a, ct_dtype b, ct_dtype *out) {
    /* torch.promote_types for the compute dtypes; order: b u1 i1 i2 i4 i8 f2 bf f4 f8 */
    enum {
        b1 = CT_BOOL,
        u1 = CT_UINT8,
        i1 = CT_INT8,
        i2 = CT_INT16,
        i4 = CT_INT32,
        i8 = CT_INT64,
        f2 = CT_FLOAT16,
        bf = CT_BFLOAT16,
        f4 = CT_FLOAT32,
        f8 = CT_FLOAT64
    };
    static const unsigned char tab[10][10] = {
        /*        b1  u1  i1  i2  i4  i8  f2  bf  f4  f8 */
        /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8},
        /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
        /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
        /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
        /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
        /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
        /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
        /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
        /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
        /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
    };
    if (!out) return CT_ERR_INVALID_ARG;
    if ((int)a < 0 || (int)b < 0 || a > CT_FLOAT64 || b > CT_FLOAT64) return CT_ERR_DTYPE;
    *out = (ct_dtype)tab[a][b];
    return CT_OK;
}

uint16_t ct_f32_to_f16(float f) { return ct__f2h(f); }
float ct_f16_to_f32(uint16_t h) { return ct__h2f(h); }
uint16_t ct_f32_to_bf16(float f) { return ct__f2bf(f); }
float ct_bf16_to_f32(uint16_t h) { return ct__bf2f(h); }

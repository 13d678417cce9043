/* Element casts between f32 and the low-precision dtypes (FP8, FP6, FP4, E8M0, f16, bf16) on raw
 * buffers: validation and ISA dispatch; the arithmetic lives in the mx_* kernels. */
#include "ctorch/mx.h"
#include "core/internal.h"
#include "mx/mx_internal.h"

#include <stdlib.h>
#include <string.h>

const ct__mxk_ops *ct__mx_ops_for_isa(int isa) {
    if (isa >= 2) return &ct__mxk_ops_avx512;
    if (isa == 1) return &ct__mxk_ops_avx2;
    return &ct__mxk_ops_ref;
}

static int ct__mx_isa_cache = -1; /* written once; every writer stores the same value */

int ct__mx_cast_isa(void) {
    int v = __atomic_load_n(&ct__mx_isa_cache, __ATOMIC_RELAXED);
    if (v >= 0) return v;
    int best = (int)ct__cpu_best(); /* capped by CT_CPU_ISA_MAX like every context */
    v = best;
    int want = ct__isa_parse(getenv("CT_CPU_ISA"));
    if (want >= 0 && want < best) v = want;
    __atomic_store_n(&ct__mx_isa_cache, v, __ATOMIC_RELAXED);
    return v;
}

/* Element format index of a low-precision float dtype, or -1. */
static int ct__mx_elem_of(ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT8_E4M3FN: return CT__MXK_E4M3;
    case CT_FLOAT8_E5M2: return CT__MXK_E5M2;
    case CT_FLOAT6_E3M2FN: return CT__MXK_E3M2;
    case CT_FLOAT6_E2M3FN: return CT__MXK_E2M3;
    case CT_FLOAT4_E2M1FN: return CT__MXK_E2M1;
    default: return -1;
    }
}

ct_status ct_cast_f32_to(ct_dtype dst, const float *src, void *dst_codes, size_t n,
                         ct_cast_mode mode) {
    if (mode != CT_CAST_DEFAULT && mode != CT_CAST_SATURATE) return CT_ERR_INVALID_ARG;
    if (n > 0 && (!src || !dst_codes)) return CT_ERR_INVALID_ARG;
    int sat = mode == CT_CAST_SATURATE;
    int elem = ct__mx_elem_of(dst);
    if (elem >= 0) {
        ct__mx_ops_for_isa(ct__mx_cast_isa())->encode(elem, src, (uint8_t *)dst_codes, n, sat);
        return CT_OK;
    }
    if (dst == CT_FLOAT8_E8M0FNU) {
        uint8_t *d = (uint8_t *)dst_codes;
        for (size_t i = 0; i < n; i++)
            d[i] = ct__mxk_e8m0_enc(src[i], sat);
        return CT_OK;
    }
    if (dst == CT_FLOAT16 || dst == CT_BFLOAT16) {
        uint16_t *d = (uint16_t *)dst_codes;
        int h = dst == CT_FLOAT16;
        uint16_t maxc = h ? 0x7BFF : 0x7F7F;
        for (size_t i = 0; i < n; i++) {
            uint16_t c = h ? ct_f32_to_f16(src[i]) : ct_f32_to_bf16(src[i]);
            /* finite input that rounded to +-Inf: clamp when saturating */
            if (sat && (c & 0x7fff) == (h ? 0x7C00 : 0x7F80) && isfinite(src[i]))
                c = (uint16_t)((c & 0x8000) | maxc);
            d[i] = c;
        }
        return CT_OK;
    }
    if (dst == CT_FLOAT32) {
        if (n) memmove(dst_codes, src, n * sizeof(float));
        return CT_OK;
    }
    return CT_ERR_DTYPE;
}

ct_status ct_cast_to_f32(ct_dtype src, const void *codes, float *dst, size_t n) {
    if (n > 0 && (!codes || !dst)) return CT_ERR_INVALID_ARG;
    int elem = ct__mx_elem_of(src);
    if (elem >= 0) {
        ct__mx_ops_for_isa(ct__mx_cast_isa())->decode(elem, (const uint8_t *)codes, dst, n);
        return CT_OK;
    }
    if (src == CT_FLOAT8_E8M0FNU) {
        const uint8_t *c = (const uint8_t *)codes;
        for (size_t i = 0; i < n; i++)
            dst[i] = ct__mxk_e8m0_dec(c[i]);
        return CT_OK;
    }
    if (src == CT_FLOAT16 || src == CT_BFLOAT16) {
        const uint16_t *c = (const uint16_t *)codes;
        for (size_t i = 0; i < n; i++)
            dst[i] = src == CT_FLOAT16 ? ct_f16_to_f32(c[i]) : ct_bf16_to_f32(c[i]);
        return CT_OK;
    }
    if (src == CT_FLOAT32) {
        if (n) memmove(dst, codes, n * sizeof(float));
        return CT_OK;
    }
    return CT_ERR_DTYPE;
}

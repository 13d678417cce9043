/* CPU feature probe (cpuid + xgetbv): the one piece of global state, computed once, read-only.
 * CT_CPU_ISA_MAX=ref|avx2 caps what the probe reports, so the behaviour of an AVX2-only or a
 * no-AVX machine (skips, defaults, errors) can be tested from any machine. Within AVX-512 the
 * kernels may use AVX512_VBMI byte permutes where the CPU has them; CT_CPU_VBMI=0 turns them off
 * (so the plain AVX-512 paths are tested on any AVX-512 machine). */
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static int ct__probe(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return CT__ISA_REF;
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1, f16c = (c >> 29) & 1;
    if (!osxsave || !avx) return CT__ISA_REF;
    unsigned xlo, xhi;
    __asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
    (void)xhi;
    if ((xlo & 0x6) != 0x6) return CT__ISA_REF; /* OS saves XMM+YMM */
    if (__get_cpuid_max(0, NULL) < 7) return CT__ISA_REF;
    __cpuid_count(7, 0, a, b, c, d);
    int avx2 = (b >> 5) & 1;
    int avx512f = (b >> 16) & 1, avx512dq = (b >> 17) & 1, avx512bw = (b >> 30) & 1,
        avx512vl = (b >> 31) & 1;
    if (!(avx2 && fma && f16c)) return CT__ISA_REF;
    if (avx512f && avx512dq && avx512bw && avx512vl && (xlo & 0xe0) == 0xe0) return CT__ISA_AVX512;
    return CT__ISA_AVX2;
}

static bool ct__probe_vbmi(void) {
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 7) return false;
    __cpuid_count(7, 0, a, b, c, d);
    return (c >> 1) & 1; /* AVX512_VBMI */
}
#else
static int ct__probe(void) { return CT__ISA_REF; }
static bool ct__probe_vbmi(void) { return false; }
#endif

static int ct__best = -1; /* written once; benign race: every writer stores the same value */

ct__isa ct__cpu_best(void) {
    int v = __atomic_load_n(&ct__best, __ATOMIC_RELAXED);
    if (v < 0) {
        v = ct__probe();
        const char *cap = getenv("CT_CPU_ISA_MAX");
        int c = cap && *cap ? ct__isa_parse(cap) : -1;
        if (c >= 0 && c < v) v = c; /* an unknown cap name is ignored (documented) */
        __atomic_store_n(&ct__best, v, __ATOMIC_RELAXED);
    }
    return (ct__isa)v;
}

static int ct__vbmi = -1; /* as ct__best */

bool ct__cpu_has_vbmi(void) {
    int v = __atomic_load_n(&ct__vbmi, __ATOMIC_RELAXED);
    if (v < 0) {
        const char *off = getenv("CT_CPU_VBMI");
        v = ct__cpu_best() == CT__ISA_AVX512 && ct__probe_vbmi() && !(off && strcmp(off, "0") == 0);
        __atomic_store_n(&ct__vbmi, v, __ATOMIC_RELAXED);
    }
    return v != 0;
}

static const char *const ct__isa_names[] = {"ref", "avx2", "avx512"};

const char *ct__isa_name(ct__isa isa) { return ct__isa_names[isa]; }

int ct__isa_parse(const char *s) {
    if (!s) return -1;
    for (int i = 0; i < 3; i++)
        if (strcasecmp(s, ct__isa_names[i]) == 0) return i;
    return -1;
}

const char *ct_cpu_best_isa(void) { return ct__isa_names[ct__cpu_best()]; }

bool ct_cpu_isa_supported(const char *isa) {
    if (!isa) return false;
    int v = ct__isa_parse(isa);
    return v >= 0 && v <= (int)ct__cpu_best();
}

#include "core/cpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static WbCpu cpu = {4, 0};

/* What the processor has, before any cap.  __builtin_cpu_supports also
 * checks that the OS saves the wide registers. */
static unsigned probe_features(void)
{
    unsigned f = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        f |= WB_CPU_AVX2;
    if (__builtin_cpu_supports("avx512f"))
        f |= WB_CPU_AVX512F;
    if (__builtin_cpu_supports("avx512bw"))
        f |= WB_CPU_AVX512BW;
    if (__builtin_cpu_supports("avx512dq"))
        f |= WB_CPU_AVX512DQ;
#endif
    return f;
}

/* WOBBLE_SIMD as a width cap: 4, 8 or 16; anything else (or unset) is 16. */
static int env_cap(void)
{
    const char *s = getenv("WOBBLE_SIMD");
    if (s && strcmp(s, "4") == 0)
        return 4;
    if (s && strcmp(s, "8") == 0)
        return 8;
    return 16;
}

static void probe(void)
{
    const unsigned wide = WB_CPU_AVX512F | WB_CPU_AVX512BW | WB_CPU_AVX512DQ;
    unsigned f = probe_features();
    int cap = env_cap();
    if (cap < 16)
        f &= ~wide;
    if (cap < 8)
        f &= ~(unsigned)WB_CPU_AVX2;
    cpu.features = f;
    cpu.lanes = (f & WB_CPU_AVX2) && (f & wide) == wide ? 16 : (f & WB_CPU_AVX2) ? 8 : 4;
}

WbCpu wb_cpu(void)
{
    pthread_once(&once, probe);
    return cpu;
}

bool wb_cpu_has(unsigned features)
{
    return (wb_cpu().features & features) == features;
}

int wb_cpu_lanes(void)
{
    return wb_cpu().lanes;
}

/* simd_w4.h — the operations of core/simd.h at 4 lanes: SSE2 on x86-64,
 * plain C elsewhere.  Include core/simd.h, not this. */
#ifndef WB_SIMD_W4_H
#define WB_SIMD_W4_H

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Is any lane of the mask m set? */
static inline int wb_any(WbI m)
{
#ifdef __SSE2__
    return _mm_movemask_ps((__m128)m) != 0;
#else
    return (m[0] | m[1] | m[2] | m[3]) != 0;
#endif
}

#endif

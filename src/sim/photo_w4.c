/* photo_w4.c — the photo kernels at 4 lanes (SSE2, the x86-64 baseline); see core/simd.h. */
#define WB_W 4
#include "sim/photo_kernel.inc"

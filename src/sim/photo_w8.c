/* photo_w8.c — the photo kernels at 8 lanes (AVX2); see core/simd.h. */
#define WB_W 8
#include "sim/photo_kernel.inc"

/* photo_w16.c — the photo kernels at 16 lanes (AVX-512); see core/simd.h. */
#define WB_W 16
#include "sim/photo_kernel.inc"

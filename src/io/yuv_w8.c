/* yuv_w8.c — RGBA to YUV by row pairs at 8 lanes (AVX2); see core/simd.h. */
#define WB_W 8
#include "io/yuv_kernel.inc"

/* yuv_w16.c — RGBA to YUV by row pairs at 16 lanes (AVX-512); see core/simd.h. */
#define WB_W 16
#include "io/yuv_kernel.inc"

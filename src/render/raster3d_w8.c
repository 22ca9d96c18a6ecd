/* raster3d_w8.c — the 3D stages at 8 lanes (AVX2); see raster3d_kernel.inc. */
#define WB_W 8
#include "render/raster3d_kernel.inc"

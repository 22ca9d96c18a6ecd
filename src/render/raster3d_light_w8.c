/* raster3d_light_w8.c — the 3D light stages at 8 lanes (AVX2); see raster3d_light_kernel.inc. */
#define WB_W 8
#include "render/raster3d_light_kernel.inc"

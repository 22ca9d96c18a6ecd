/* raster3d_w16.c — the 3D stages at 16 lanes (AVX-512 F/BW/DQ); see raster3d_kernel.inc. */
#define WB_W 16
#include "render/raster3d_kernel.inc"

/* raster3d_w4.c — the 3D stages at 4 lanes (SSE2); see raster3d_kernel.inc. */
#define WB_W 4
#include "render/raster3d_kernel.inc"

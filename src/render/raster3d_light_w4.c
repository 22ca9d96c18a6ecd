/* raster3d_light_w4.c — the 3D light stages at 4 lanes (SSE2); see raster3d_light_kernel.inc. */
#define WB_W 4
#include "render/raster3d_light_kernel.inc"

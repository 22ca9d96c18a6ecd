/* cloth_links_w16.c — the cloth links kernels at 16 lanes (AVX-512); see cloth_lanes.h. */
#define WB_W 16
#include "sim/cloth_links_kernel.inc"

/* cloth_links_w8.c — the cloth links kernels at 8 lanes (AVX2); see cloth_lanes.h. */
#define WB_W 8
#include "sim/cloth_links_kernel.inc"

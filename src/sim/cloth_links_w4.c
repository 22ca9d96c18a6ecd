/* cloth_links_w4.c — the cloth links kernels at 4 lanes (SSE2); see cloth_lanes.h. */
#define WB_W 4
#include "sim/cloth_links_kernel.inc"

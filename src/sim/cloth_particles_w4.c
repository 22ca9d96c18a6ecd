/* cloth_particles_w4.c — the cloth particles kernels at 4 lanes (SSE2); see cloth_lanes.h. */
#define WB_W 4
#include "sim/cloth_particles_kernel.inc"

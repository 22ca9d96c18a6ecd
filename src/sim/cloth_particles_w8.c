/* cloth_particles_w8.c — the cloth particles kernels at 8 lanes (AVX2); see cloth_lanes.h. */
#define WB_W 8
#include "sim/cloth_particles_kernel.inc"

/* cloth_particles_w16.c — the cloth particles kernels at 16 lanes (AVX-512); see cloth_lanes.h. */
#define WB_W 16
#include "sim/cloth_particles_kernel.inc"

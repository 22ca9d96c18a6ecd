/* cloth_dihedral_w4.c — the cloth dihedral kernels at 4 lanes (SSE2); see cloth_lanes.h. */
#define WB_W 4
#include "sim/cloth_dihedral_kernel.inc"

/* cloth_dihedral_w8.c — the cloth dihedral kernels at 8 lanes (AVX2); see cloth_lanes.h. */
#define WB_W 8
#include "sim/cloth_dihedral_kernel.inc"

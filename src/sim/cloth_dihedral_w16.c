/* cloth_dihedral_w16.c — the cloth dihedral kernels at 16 lanes (AVX-512); see cloth_lanes.h. */
#define WB_W 16
#include "sim/cloth_dihedral_kernel.inc"

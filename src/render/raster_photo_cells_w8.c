/* raster_photo_cells_w8.c — the photo cell groups at 8 lanes (AVX2); see raster_photo_cells_kernel.inc. */
#define WB_W 8
#include "render/raster_photo_cells_kernel.inc"

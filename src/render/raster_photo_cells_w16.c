/* raster_photo_cells_w16.c — the photo cell groups at 16 lanes (AVX-512 F/BW/DQ); see raster_photo_cells_kernel.inc. */
#define WB_W 16
#include "render/raster_photo_cells_kernel.inc"

/* raster_photo_band_w8.c — the photo band at 8 lanes (AVX2); see raster_photo_band_kernel.inc. */
#define WB_W 8
#include "render/raster_photo_band_kernel.inc"

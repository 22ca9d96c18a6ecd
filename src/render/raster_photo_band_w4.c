/* raster_photo_band_w4.c — the photo band at 4 lanes (SSE2); see raster_photo_band_kernel.inc. */
#define WB_W 4
#include "render/raster_photo_band_kernel.inc"

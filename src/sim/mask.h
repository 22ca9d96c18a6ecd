/* mask.h — segmentation as a weight (SPEC 4.1): a per-pixel weight in [0,1]
 * that the photo simulation samples at its vertices and multiplies into the
 * grab weight, so only the object moves.
 *
 * Masks are image-sized float arrays, row major, top row first, one weight
 * per pixel, malloc'd; the caller frees them with free().  (Mask files are
 * read by wb_mask_load in io/image_load.h.)
 */
#ifndef WB_MASK_H
#define WB_MASK_H

#include "core/error.h"
#include "core/image.h"

/* A stand-in for an interactive segmenter: flood fill (4-connected, scanline)
 * from the pixel under (at_x, at_y) — normalized [0,1]² image coordinates,
 * origin top left — over pixels whose RGB colour is within `tolerance` of the
 * seed pixel's colour (Euclidean distance of 0..1 channels divided by √3, so
 * tolerance is in [0,1]: 0 = the exact colour only, 1 = everything).  The
 * filled region gets weight 1, the rest 0; then a [1 2 1]/4 blur in x and in
 * y feathers the edge over about one pixel each side.
 * Errors: WB_E_INPUT for an empty image, a seed outside [0,1]² or a
 * tolerance outside [0,1]; WB_E_IO when out of memory. */
WbStatus wb_mask_segment(const WbImage *photo, double at_x, double at_y, double tolerance,
                         float **mask_out, WbError *err);

#endif

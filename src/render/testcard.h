/* testcard.h — the built-in test picture.
 *
 * A picture made by wobble itself, so the examples need nothing downloaded:
 * colour bars, a fine grid, concentric rings, a checkerboard, a jelly block
 * (one soft colour, for flood-fill segmentation) and a striped glossy ball in
 * the middle (the object of the mask examples).  Every
 * pixel is a 4×4 supersampled analytic function of its position, so the
 * card is the same at any size up to scale and sharp enough that a
 * sub-pixel wobble is visible.
 */
#ifndef WB_TESTCARD_H
#define WB_TESTCARD_H

#include "core/error.h"
#include "core/image.h"

/* Render the card (or, with mask, the ball's coverage as opaque grey) into a
 * freshly allocated w×h image.  Caller frees with wb_image_free. */
WbStatus wb_testcard_make(WbImage *out, int w, int h, bool mask, WbError *err);

#endif

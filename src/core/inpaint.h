/* inpaint.h — fill a masked region of an image from its surroundings.
 *
 * What lies behind a moving object in a photo is unknown; this makes a
 * plausible stand-in: a smooth continuation of the colours around the
 * region, the shape a stretched membrane would take (a linear ramp is
 * continued as the ramp, a constant as the constant).  Used once per photo,
 * not per frame: the photo view draws its still background from the result.
 *
 * The mask is an image-sized float weight in [0, 1] (1 = the object), row
 * major, top row first.  A pixel's confidence is c = 1 - M, M the mask
 * grown by a square max filter of `margin` pixels (an object's colour bleeds
 * into the pixels just outside its mask); every output pixel is
 *     c·photo + (1 - c)·fill,
 * so a soft mask edge blends softly, pixels with c = 1 keep their bytes
 * exactly and nothing of the object survives where c = 0.  The fill is a
 * push-pull pyramid (each level the confidence-weighted [1 3 3 1]/8 average
 * of the finer one; back up by bilinear upsampling) with a few Jacobi
 * relaxation steps of the membrane equation per level so no block or seam
 * shows.  Colours are filled premultiplied, so a transparent pixel's colour
 * never bleeds.  Deterministic: fixed order, no threads.
 */
#ifndef WB_INPAINT_H
#define WB_INPAINT_H

#include <stdbool.h>

#include "core/color.h"
#include "core/error.h"
#include "core/image.h"

/* The usual margin: pixels around the mask treated as the object's (its
 * antialiased or compressed edge), 2 at the photo's resolution. */
#define WB_INPAINT_MARGIN 2

typedef struct WbInpaintDef {
    int margin;     /* pixels, >= 0 (WB_INPAINT_MARGIN) */
    bool flat;      /* fill with `color` instead of from the surroundings */
    WbColor color;  /* straight RGBA 0..1; used when flat */
} WbInpaintDef;

/* Make *dst (a new w×h image the caller frees with wb_image_free) from src
 * with the region under `mask` (src->w × src->h weights, read only) filled
 * as above.  With no pixel of confidence > 0 there is nothing to continue:
 * dst is then a copy of src (a flat fill still applies).  WB_E_INPUT for a
 * negative margin, WB_E_IO when out of memory (*dst then needs no free). */
WbStatus wb_inpaint(const WbImage *src, const float *mask, const WbInpaintDef *def,
                    WbImage *dst, WbError *err);

#endif

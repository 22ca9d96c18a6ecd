/* image.h — the one pixel buffer type shared by io, render and tools.
 *
 * Layout: 8-bit RGBA, 4 bytes per pixel in memory order R,G,B,A; rows top
 * to bottom; `stride` is the distance in bytes between the starts of two rows
 * (>= 4*w).  Alpha is straight (not premultiplied) in a WbImage: that is what
 * PNG files and encoders expect.  The renderer works premultiplied
 * internally and converts when it resolves into a WbImage.
 */
#ifndef WB_IMAGE_H
#define WB_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/hash.h"

typedef struct WbImage {
    uint8_t *px;       /* owned by whoever allocated it (see wb_image_alloc) */
    int w, h;
    ptrdiff_t stride;  /* bytes per row */
} WbImage;

/* Allocate a zeroed w×h image (stride = 4*w, 64-byte aligned rows start). */
WbStatus wb_image_alloc(WbImage *img, int w, int h, WbError *err);
void wb_image_free(WbImage *img);

static inline uint8_t *wb_image_row(const WbImage *img, int y)
{
    return img->px + (ptrdiff_t)y * img->stride;
}

/* FNV-1a of the pixels' bytes row by row (padding excluded): the same
 * hash means the same frame, for bit-identity checks in tests and
 * benchmarks. */
static inline uint64_t wb_image_hash(const WbImage *img)
{
    uint64_t h = WB_FNV1A_SEED;
    for (int y = 0; y < img->h; y++)
        h = wb_fnv1a(h, wb_image_row(img, y), 4 * (size_t)img->w);
    return h;
}

/* True when any pixel has alpha < 255. */
bool wb_image_has_alpha(const WbImage *img);

#endif

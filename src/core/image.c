#include "core/image.h"

#include <stdlib.h>
#include <string.h>

WbStatus wb_image_alloc(WbImage *img, int w, int h, WbError *err)
{
    memset(img, 0, sizeof *img);
    if (w <= 0 || h <= 0 || w > 32768 || h > 32768)
        return wb_error_set(err, WB_E_INPUT, "image size %dx%d is out of range (1..32768)", w, h);
    size_t stride = (size_t)w * 4;
    size_t bytes = stride * (size_t)h;
    /* Round up so aligned_alloc's size is a multiple of the alignment. */
    uint8_t *px = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!px)
        return wb_error_set(err, WB_E_IO, "out of memory for a %dx%d image", w, h);
    memset(px, 0, bytes);
    img->px = px;
    img->w = w;
    img->h = h;
    img->stride = (ptrdiff_t)stride;
    return WB_OK;
}

void wb_image_free(WbImage *img)
{
    if (!img)
        return;
    free(img->px);
    memset(img, 0, sizeof *img);
}

bool wb_image_has_alpha(const WbImage *img)
{
    for (int y = 0; y < img->h; y++) {
        const uint8_t *row = wb_image_row(img, y);
        for (int x = 0; x < img->w; x++)
            if (row[4 * x + 3] != 255)
                return true;
    }
    return false;
}

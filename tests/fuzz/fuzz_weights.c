/* fuzz_weights.c — jiggle.weights: a PNG read by libpng, turned into a
 * weight map and measured, as the jiggle run loads it (the blur that
 * follows is simulation, not loading).
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/image.h"
#include "fuzz_file.h"
#include "io/png.h"
#include "sim/weightmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    WbImage img;
    WbError err;
    const char *path = fuzz_file_write(data, size, "weights-seed-7.png");
    if (fuzz_over_max_pixels(path))
        return 0;
    WbStatus st = wb_png_read(path, &img, &err);
    if (st != WB_OK) {
        if (st != WB_E_INPUT && st != WB_E_IO)
            abort();
        return 0;
    }
    WbWeightMap m;
    st = wb_weightmap_from_image(&m, &img, &err);
    wb_image_free(&img);
    if (st == WB_OK) {
        double area[WB_WEIGHTMAP_BONES];
        wb_weightmap_area(&m, area);
        for (int c = 0; c < WB_WEIGHTMAP_BONES; c++)
            if (!(area[c] >= 0.0 && area[c] <= 1.0))
                abort();
        wb_weightmap_free(&m);
    } else if (st != WB_E_INPUT && st != WB_E_IO) {
        abort();
    }
    return 0;
}

/* fuzz_mask.c — photo.mask: any image decoded to one weight per pixel,
 * every weight in [0, 1].
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/error.h"
#include "fuzz_file.h"
#include "io/image_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size, "input");
    if (fuzz_over_max_pixels(path))
        return 0;
    float *wt = NULL;
    int w = 0, h = 0;
    WbError err;
    WbStatus st = wb_mask_load(path, &wt, &w, &h, &err);
    if (st == WB_OK) {
        if (w <= 0 || h <= 0 || !wt)
            abort();
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
            if (!(wt[i] >= 0.0f && wt[i] <= 1.0f))
                abort();
        free(wt);
    } else if (st != WB_E_INPUT && st != WB_E_IO) {
        abort();
    }
    return 0;
}

/* fuzz_image.c — photo decoding: FFmpeg's probe and first-frame decode,
 * the conversion to RGBA8 and the EXIF orientation, as photo.image is
 * read.  The file has no extension, so the format is told by content.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/image.h"
#include "fuzz_file.h"
#include "io/image_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size, "input");
    if (fuzz_over_max_pixels(path))
        return 0;
    WbImage img;
    WbError err;
    bool alpha = false;
    WbStatus st = wb_image_load(path, &img, &alpha, &err);
    if (st == WB_OK) {
        if (img.w <= 0 || img.h <= 0 || !img.px || alpha != wb_image_has_alpha(&img))
            abort();
        wb_image_free(&img);
    } else if (st != WB_E_INPUT && st != WB_E_IO) {
        abort();
    }
    return 0;
}

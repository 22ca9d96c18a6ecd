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
#include "io/image_probe.h"
#include "run/runner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* As wobble reads it: a picture over the default --max-pixels is
     * refused from its header (run/runner.c) before it is decoded. */
    const char *path = fuzz_file_write(data, size, "input");
    int64_t pw, ph;
    if ((wb_image_header_size(path, &pw, &ph) || wb_image_probe_size(path, &pw, &ph)) && pw > 0 &&
        ph > 0 && pw > WB_MAX_PIXELS / ph)
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

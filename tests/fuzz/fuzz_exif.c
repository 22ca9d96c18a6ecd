/* fuzz_exif.c — the EXIF orientation finders (JPEG APP1, PNG eXIf, WebP
 * EXIF, TIFF IFD0) on their own: they seek and read at offsets the file
 * names, and run before any decoder has vetted the file, so they get a
 * harness of their own, much faster than a whole decode.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_file.h"
#include "io/image_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int o = wb_image_exif_orientation(fuzz_file_write(data, size, "input"));
    if (o < 1 || o > 8)
        abort();
    return 0;
}

/* png.h — PNG files through libpng.
 *
 * Writes are deterministic (no tIME, no text chunks: the same image always
 * gives the same bytes) and safe: the file is written under a temporary name
 * in the target folder, every libpng/stdio result is checked (including the
 * final fclose, which is where a full disk often shows), and only a complete
 * file is renamed into place.
 */
#ifndef WB_PNG_H
#define WB_PNG_H

#include <stdbool.h>

#include "core/error.h"
#include "core/image.h"

/* Write img (straight RGBA8) to path: 8-bit RGBA when alpha, else 8-bit RGB
 * (alpha dropped).  WB_E_IO naming the path on any failure; nothing is left
 * at path or in the temporary file then. */
WbStatus wb_png_write(const char *path, const WbImage *img, bool alpha, WbError *err);

/* Read any PNG (grey, palette, tRNS, 1..16-bit, interlaced) into a newly
 * allocated straight-RGBA8 out (free with wb_image_free).  8-bit RGBA reads
 * back bit exact; 16-bit samples are rounded to 8 bits.  A missing or broken
 * file is WB_E_INPUT naming the path. */
WbStatus wb_png_read(const char *path, WbImage *out, WbError *err);

#endif

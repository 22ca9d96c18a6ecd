/* image_load.h — still images in: photos, textures and masks.
 *
 * Decoding goes through libavformat/libavcodec (JPEG, PNG 1..16-bit grey /
 * palette / alpha, WebP, BMP, TIFF, the first frame of a GIF, and anything
 * else FFmpeg reads as a picture) and libswscale to straight RGBA8.  The EXIF
 * orientation (1..8) of a JPEG, PNG (eXIf chunk), WebP (EXIF chunk) or TIFF
 * (IFD0) is applied, so the image comes out the way a viewer shows it; BMP
 * and GIF have none.  libav never prints (see io/av_common.h).
 */
#ifndef WB_IMAGE_LOAD_H
#define WB_IMAGE_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/image.h"

/* No decoder here makes a picture over this many pixels (1 GiB of RGBA),
 * whatever its header said: the last guard behind the --max-pixels check. */
#define WB_IMAGE_DECODE_MAX_PIXELS (INT64_C(1) << 28)

/* Decode `path` into a newly allocated out (free with wb_image_free).
 * has_alpha (may be NULL) is set when some pixel has alpha < 255.
 * Errors: WB_E_INPUT "cannot read image 'path': reason" for a missing,
 * corrupt or unsupported file; out is then zeroed. */
WbStatus wb_image_load(const char *path, WbImage *out, bool *has_alpha, WbError *err);

/* A mask image as one weight per pixel in [0,1], row-major, top row first,
 * *w × *h floats in a malloc'd *weights the caller frees.  The weight is the
 * alpha when some pixel is not opaque, otherwise the grey value (for colour
 * images the Rec.709 luma of the 8-bit RGB values).  Errors as for
 * wb_image_load. */
WbStatus wb_mask_load(const char *path, float **weights, int *w, int *h, WbError *err);

/* The picture size a file states in its header, read before any decoding
 * (so a small file that would decode to gigabytes can be refused): PNG
 * IHDR, JPEG SOFn, GIF screen, BMP, WebP (VP8, VP8L, VP8X) and TIFF IFD0,
 * the format told by the magic bytes.  False when the format is another or
 * the header is cut short. */
bool wb_image_header_size(const char *path, int64_t *w, int64_t *h);

/* The EXIF orientation (1..8) stored in the file: a JPEG's APP1 Exif
 * segment, a PNG's eXIf chunk, a WebP's EXIF chunk or a TIFF's IFD0, the
 * format told by the magic bytes, not the name.  1 when the file has none,
 * is another format, or is cut short or malformed.  Exposed for the tests. */
int wb_image_exif_orientation(const char *path);

#endif

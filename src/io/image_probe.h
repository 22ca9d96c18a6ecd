/* image_probe.h — the size of a picture FFmpeg reads, found without
 * decoding it, for the formats whose header wb_image_header_size
 * (image_load.h) does not read itself: TGA, PPM/PAM, QOI, SGI, PCX, EXR,
 * JPEG 2000, a video file's first picture, anything libavformat opens.
 */
#ifndef WB_IMAGE_PROBE_H
#define WB_IMAGE_PROBE_H

#include <stdbool.h>
#include <stdint.h>

/* The stated width and height of the first video stream of `path`: from
 * the container's stream parameters when it has them, otherwise from the
 * decoder, which is handed the first packet and stopped when it asks for
 * the picture's memory (so nothing the size of the picture is allocated).
 * False when libavformat cannot open the file or no size is stated. */
bool wb_image_probe_size(const char *path, int64_t *w, int64_t *h);

#endif

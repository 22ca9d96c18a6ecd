/* image_av.h — the decoded-frame conversion image_load.c and image_seq.c
 * share (private to src/io). */
#ifndef WB_IMAGE_AV_H
#define WB_IMAGE_AV_H

#include "core/error.h"
#include "core/image.h"

struct AVFrame;

/* A decoded frame as a newly allocated straight-RGBA8 img (exact for 8-bit
 * RGB and palette input, grey full range, deeper formats rounded).
 * Errors: WB_E_INPUT "cannot read image 'path': reason"; img then freed. */
WbStatus wb_image_from_avframe(const struct AVFrame *fr, WbImage *img, const char *path,
                               WbError *err);

/* WB_E_INPUT "cannot read image 'path': why", why being FFmpeg's text for
 * averr, or `what` when averr is 0. */
WbStatus wb_image_read_error(WbError *err, const char *path, int averr, const char *what);

#endif

/* webp_anim.h — animated WebP, which FFmpeg 5 does not decode: the file's
 * ANMF frames are cut out of its RIFF container, each decoded as a WebP of
 * its own by libavcodec, and drawn onto a canvas as the WebP container
 * specification says (offset, alpha blending or not, disposal of the
 * frame's rectangle to transparent before the next).  The canvas starts
 * transparent (as libwebp's animation decoder has it; the ANIM background
 * colour is only a hint to players).
 */
#ifndef WB_WEBP_ANIM_H
#define WB_WEBP_ANIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/image.h"

/* True when the first bytes of a file (at least 21) start an animated
 * WebP: "RIFF" size "WEBP" "VP8X" with the animation flag. */
bool wb_webp_anim_is(const unsigned char *head, size_t n);

/* The same for the file at path ("-": standard input). */
bool wb_webp_anim_file(const char *path);

typedef struct WbWebpAnim WbWebpAnim;

/* Read path ("-": standard input) and list its frames.  WB_E_INPUT
 * "cannot read image 'path': reason" when it is not a well-formed animated
 * WebP. */
WbStatus wb_webp_anim_open(WbWebpAnim **out, const char *path, WbError *err);

int64_t wb_webp_anim_frames(const WbWebpAnim *a);
/* Frame i's start in seconds after the first; i == frames gives the length
 * of one play. */
double wb_webp_anim_time(const WbWebpAnim *a, int64_t i);

/* The canvas as shown with frame i (straight RGBA, canvas-sized, owned by
 * a, valid until the next call): drawn on from the frame drawn last, or
 * from the first when i is before it.  Errors as wb_webp_anim_open. */
WbStatus wb_webp_anim_canvas(WbWebpAnim *a, int64_t i, const WbImage **img, WbError *err);

void wb_webp_anim_close(WbWebpAnim *a);

#endif

/* image_seq.h — pictures that change over time: an animated GIF or PNG, or
 * a video (anything FFmpeg demuxes with more than one picture), or an
 * animated WebP (io/webp_anim.h), used as a
 * photo that plays.
 *
 * Frames are decoded in order, one at a time, never all at once: memory is
 * two decoded frames and one RGBA copy whatever the length.  Frame i is
 * shown from its timestamp (relative to the first frame's) until the next
 * frame's; the input then starts over, so it loops with the period of one
 * play (the last frame's timestamp plus its duration).  The frame shown at
 * time t is a function of t alone: asking for an earlier time than the last
 * decodes again from the start, so any range of output frames gets the
 * same pictures as a whole run.
 *
 * "-" is standard input, read whole into memory (io/av_common.h).
 */
#ifndef WB_IMAGE_SEQ_H
#define WB_IMAGE_SEQ_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/image.h"

typedef struct WbImageSeqInfo {
    int64_t frames;    /* pictures in the input; 1 for a still */
    double duration;   /* seconds of one play; 0 for a still */
    double fps;        /* frames / duration; 0 for a still */
} WbImageSeqInfo;

/* Count the pictures of path and the time they span from the container's
 * packets (nothing is decoded).  Errors: WB_E_INPUT "cannot read image
 * 'path': reason". */
WbStatus wb_image_seq_probe(const char *path, WbImageSeqInfo *info, WbError *err);

typedef struct WbImageSeq WbImageSeq;

/* Open path for playing.  *out is NULL (and WB_OK) when it holds one
 * picture: a still is read by wb_image_load alone.  Frames larger than
 * max_pixels (0: no limit) are refused (WB_E_INPUT, naming --max-pixels).
 * Errors as wb_image_seq_probe. */
WbStatus wb_image_seq_open(WbImageSeq **out, const char *path, int64_t max_pixels,
                           WbError *err);

const WbImageSeqInfo *wb_image_seq_info(const WbImageSeq *s);

/* Make the frame shown at time t (seconds, >= 0) current and give its index
 * in the input (0 = the first frame).  WB_E_INPUT when the input cannot be
 * decoded again or changes its size. */
WbStatus wb_image_seq_seek(WbImageSeq *s, double t, int64_t *index, WbError *err);

/* The current frame as straight RGBA (same size as the first frame), owned
 * by s and valid until the next seek.  Errors as wb_image_seq_seek. */
WbStatus wb_image_seq_image(WbImageSeq *s, const WbImage **img, WbError *err);

void wb_image_seq_close(WbImageSeq *s);

#endif

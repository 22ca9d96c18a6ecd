/* sink.h — where rendered frames go.
 *
 * One interface for every output kind; the kind follows the output path:
 *   .mp4  H.264 (libx264), yuv420p (odd sizes padded by one edge pixel... see sink_av.c)
 *   .webm VP9 (libvpx-vp9), yuva420p when the scene is transparent
 *   .mov  ProRes 4444 (prores_ks), yuva444p10le
 *   .mkv  FFV1, lossless (bgr0 / bgra)
 *   .gif  palette per run (libavfilter palettegen/paletteuse)
 *   .webp animated (libwebp_anim)
 *   .apng animated PNG (FFmpeg's apng), RGBA when the scene is transparent
 *         (the three animations loop loop_count times, 0 = forever)
 *   NAME.png (no %d) one PNG, for a one-frame range
 *   NAME%04d.png (any printf %d/%0Nd) a PNG sequence through libpng, RGBA when
 *         the scene is transparent, RGB otherwise
 *   -     a YUV4MPEG2 stream on stdout, for `| ffmpeg -i - ...`
 *   .y4m, or an existing device/FIFO with none of these extensions
 *         (/dev/stdout, a named pipe): the same YUV4MPEG2 stream, there
 *
 * Nothing lost: files are written under a temporary name in the target's
 * folder and renamed into place by wb_sink_close(commit=true).  A close with
 * commit=false removes everything written.  Every write, flush and close is
 * checked; failures are WB_E_IO with the path in the message.
 */
#ifndef WB_SINK_H
#define WB_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/damage.h"
#include "core/error.h"
#include "core/image.h"

typedef enum WbSinkKind {
    WB_SINK_MP4, WB_SINK_WEBM, WB_SINK_MOV, WB_SINK_MKV, WB_SINK_GIF,
    WB_SINK_WEBP, WB_SINK_PNGSEQ, WB_SINK_Y4M, WB_SINK_APNG, WB_SINK_PNG
} WbSinkKind;

typedef struct WbSinkOptions {
    const char *path;       /* output path, "-" = y4m on stdout */
    int width, height;      /* frame size in pixels */
    int fps_num, fps_den;   /* frame rate as a rational */
    bool alpha;             /* the frames carry meaningful alpha */
    const char *codec;      /* NULL = the kind's default encoder */
    const char *preset;     /* NULL = default (x264: "medium"; others ignore or map) */
    const char *pix_fmt;    /* NULL = the kind's default */
    int crf;                /* -1 = default */
    int threads;            /* encoder threads, 0 = automatic */
    int64_t first_frame;    /* number of the first frame (PNG sequence numbering) */
    int64_t frame_count;    /* frames to come; a single PNG takes exactly 1; 0 = unknown */
    int loop_count;         /* GIF, WebP, APNG: times the animation plays, 0 = forever */
    /* Ping-pong: after the N frames written, the sink plays frames N-2 down
     * to 1 again at close (commit), 2N-2 in all (N <= 2: the N frames).  The
     * frames wait in an unlinked temporary file (tmpfile(3), w·h·4 bytes
     * each), so memory stays at one frame; frame_count counts them all. */
    bool pingpong;
    bool crf_given, preset_given; /* the user asked for them (--crf, --preset) */
} WbSinkOptions;

/* Things an output will do that its user may not expect (options it
 * ignores, frames it merges, alpha it drops), as sentences for main to
 * print as warnings.  Never errors: the output is still written. */
#define WB_SINK_NOTES_MAX 6
typedef struct WbSinkNotes {
    int n;
    char msg[WB_SINK_NOTES_MAX][512];
} WbSinkNotes;

typedef struct WbSink WbSink;

/* The kind an output path selects, or WB_E_INPUT with a message listing the
 * known extensions. */
WbStatus wb_sink_kind_for_path(const char *path, WbSinkKind *kind, WbError *err);

/* Check the options (codec exists, pix_fmt supported, path writable) without
 * writing anything: used before simulation starts so bad options are exit 2
 * and leave no file. */
WbStatus wb_sink_preflight(const WbSinkOptions *opt, WbError *err);

/* The notes for options that passed wb_sink_preflight. */
void wb_sink_notes(const WbSinkOptions *opt, WbSinkNotes *notes);

/* Append one note (printf-style; dropped when notes is full). */
void wb_sink_note(WbSinkNotes *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

WbStatus wb_sink_open(WbSink **out, const WbSinkOptions *opt, WbError *err);

/* Append one frame (opt->width × opt->height, straight RGBA).  damage
 * (NULL: everything) says where `frame` differs from what the same pixel
 * buffer (by address and stride) held when it was last written here; a
 * sink may then redo its per-frame work there only (the YUV outputs
 * convert only those tiles).  A buffer the sink has not seen counts as
 * changed everywhere; a new buffer at an old one's address must come with
 * NULL. */
WbStatus wb_sink_write(WbSink *sink, const WbImage *frame, const WbDamage *damage, WbError *err);

/* Frames a ping-pong of n written frames shows: 2n-2, or n when n <= 2. */
int64_t wb_sink_pingpong_frames(int64_t n);

/* Flush the encoder, finalize the container and, when commit is true, rename
 * the result into place.  With commit false everything written is removed.
 * Always frees the sink, also on failure. */
WbStatus wb_sink_close(WbSink *sink, bool commit, WbError *err);

#endif

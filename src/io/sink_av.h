/* sink_av.h — the FFmpeg-backed sinks (private to src/io/sink.c).
 *
 * Every kind except the PNG sequence: .mp4 .webm .mov .mkv .gif .webp and the
 * y4m stream on stdout.  See sink_av.c for the codec, colour and size
 * decisions.
 */
#ifndef WB_SINK_AV_H
#define WB_SINK_AV_H

#include "io/sink.h"

typedef struct WbAvSink WbAvSink;

/* Validate codec, pix_fmt, preset and crf for `kind` without writing. */
WbStatus wb_avsink_preflight(const WbSinkOptions *opt, WbSinkKind kind, WbError *err);

/* The notes (wb_sink_notes) for options that passed preflight. */
void wb_avsink_notes(const WbSinkOptions *opt, WbSinkKind kind, WbSinkNotes *notes);

WbStatus wb_avsink_open(WbAvSink **out, const WbSinkOptions *opt, WbSinkKind kind,
                        WbError *err);
WbStatus wb_avsink_write(WbAvSink *s, const WbImage *frame, const WbDamage *damage,
                         WbError *err);
WbStatus wb_avsink_close(WbAvSink *s, bool commit, WbError *err);

#endif

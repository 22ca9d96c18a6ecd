/* sink_pngseq.h — numbered PNG files (private to src/io/sink.c).
 *
 * The path is a pattern with exactly one printf-style integer conversion,
 * `%d` or `%0Nd` (N ≤ 18), e.g. "frames/f_%04d.png"; `%%` is a literal
 * percent sign.  Frame i is written to the pattern with opt->first_frame + i,
 * each file complete (libpng, temporary name, rename) before the next.
 * A path without '%' is one PNG of one frame (sink.c checks the count).
 * Folders the first file's name needs and that do not exist are made at
 * open (like mkdir -p) and removed again when the sink keeps nothing.
 */
#ifndef WB_SINK_PNGSEQ_H
#define WB_SINK_PNGSEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/sink.h"

typedef struct WbPngSeq WbPngSeq;

/* True when path holds a '%' (it is meant as a sequence pattern). */
bool wb_pngseq_looks_like_pattern(const char *path);

/* Format the file name of frame number `n` into buf; WB_E_INPUT when the
 * pattern is not exactly one %d / %0Nd conversion. */
WbStatus wb_pngseq_name(const char *pattern, int64_t n, char *buf, size_t size, WbError *err);

WbStatus wb_pngseq_preflight(const WbSinkOptions *opt, WbError *err);
WbStatus wb_pngseq_open(WbPngSeq **out, const WbSinkOptions *opt, WbError *err);
WbStatus wb_pngseq_write(WbPngSeq *s, const WbImage *frame, WbError *err);
WbStatus wb_pngseq_close(WbPngSeq *s, bool commit, WbError *err);

#endif

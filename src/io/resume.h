/* resume.h — the journal that lets an interrupted PNG-sequence render go on
 * where it stopped (render --resume).
 *
 * Next to the frames, `<name of the range's first frame>.resume` holds a
 * text line naming the render (its key: the effective scene's hash and
 * every option that changes the frames' bytes), then one line per frame
 * whose file is complete: "frame N SIZE HASH" (bytes and FNV-1a 64 of the
 * file), appended with one write(2) each once the frame is renamed into
 * place.  A kill -9 loses at most the line of a frame being finished; that
 * frame is simply drawn again.
 *
 * On resume the finished frames are not trusted: each listed frame, in
 * order from the range's first, must exist, have the recorded size and
 * hash, and decode as a PNG of the render's size.  The first that does not
 * ends the verified run, and everything from it on is drawn again.
 */
#ifndef WB_RESUME_H
#define WB_RESUME_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"

typedef struct WbResume WbResume;

/* Open the journal of the PNG sequence `pattern` for frames [first, end)
 * rendered as `key` (one line of text, no newline) at w×h: verify what it
 * lists and rewrite it (temporary name, rename) with the verified frames
 * only, ready for appending.  *done is how many frames from `first` on are
 * finished and checked.  A journal of another key counts nothing.
 * WB_E_IO naming the journal when it cannot be written. */
WbStatus wb_resume_open(WbResume **out, const char *pattern, int64_t first, int64_t end,
                        const char *key, int w, int h, int64_t *done, WbError *err);

/* Frame `frame` is complete in its file: append its line. */
WbStatus wb_resume_add(WbResume *r, int64_t frame, WbError *err);

/* The journal's path. */
const char *wb_resume_path(const WbResume *r);

/* Close; with `complete` (every frame of the range written) the journal is
 * removed, else kept for the next --resume. */
WbStatus wb_resume_close(WbResume *r, bool complete, WbError *err);

#endif

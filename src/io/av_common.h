/* av_common.h — the small glue every libav user in src/io shares.
 *
 * FFmpeg logs through a process-wide callback.  Library code must not print,
 * so wb_av_init() installs a callback that prints nothing and keeps the last
 * warning-or-worse message of the calling thread, which error messages then
 * quote ("... : Invalid data found (x264: width not divisible by 2)"), and
 * caps any single FFmpeg allocation at 1 GiB (av_max_alloc).
 */
#ifndef WB_AV_COMMON_H
#define WB_AV_COMMON_H

#include <stddef.h>

/* Install the quiet log callback once per process (thread-safe). */
void wb_av_init(void);

/* Forget the calling thread's last libav message. */
void wb_av_log_reset(void);

/* Describe a libav error code plus, when there is one, the last libav log
 * message of this thread: "reason (detail)".  Returns buf. */
const char *wb_av_describe(int averr, char *buf, size_t n);

#endif

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

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct AVFormatContext;
struct AVIOContext;

/* Install the quiet log callback once per process (thread-safe). */
void wb_av_init(void);

/* Forget the calling thread's last libav message. */
void wb_av_log_reset(void);

/* Describe a libav error code plus, when there is one, the last libav log
 * message of this thread: "reason (detail)".  Returns buf. */
const char *wb_av_describe(int averr, char *buf, size_t n);

/* "-" as an input file is standard input: its bytes are read whole, once
 * per process (a pipe cannot be read twice), at most WB_STDIN_MAX_BYTES,
 * and every later open of "-" reads that copy.  Returns 0, or an errno
 * value (EFBIG past the limit) that later calls return again. */
#define WB_STDIN_MAX_BYTES ((size_t)512 << 20)
int wb_av_stdin_bytes(const unsigned char **buf, size_t *len);

/* fopen(path, "rb"), or for "-" a read-only stream over standard input's
 * bytes (wb_av_stdin_bytes); NULL with errno set on failure. */
FILE *wb_av_fopen(const char *path);

/* A picture or video file opened by libavformat: path on the file protocol
 * ("file:" so "a:b" is no URL; an image2 name such as "shot%03d.png" is
 * one file, not a sequence), or "-" read from memory. */
typedef struct WbAvInput {
    struct AVFormatContext *fmt;
    struct AVIOContext *pb;    /* "-" only: the memory reader */
    size_t pos;                /* its read position */
} WbAvInput;

/* Open and probe (avformat_find_stream_info) path.  0, or a libav error
 * code (AVERROR(errno) when standard input cannot be read); *in is then
 * closed. */
int wb_av_open(WbAvInput *in, const char *path);
void wb_av_close(WbAvInput *in);

#endif

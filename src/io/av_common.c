#include "io/av_common.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>

/* The last libav message at AV_LOG_WARNING or worse on this thread.  libav
 * sometimes emits one line in several calls, so pieces are appended until a
 * newline ends the message; the next message then starts afresh. */
static _Thread_local char last_msg[512];
static _Thread_local int last_msg_done = 1;

static void quiet_log(void *avcl, int level, const char *fmt, va_list ap)
{
    (void)avcl;
    if (level > AV_LOG_WARNING)
        return;
    size_t used = last_msg_done ? 0 : strlen(last_msg);
    if (used >= sizeof last_msg - 1)
        return;
    vsnprintf(last_msg + used, sizeof last_msg - used, fmt, ap);
    size_t len = strlen(last_msg);
    last_msg_done = len > 0 && last_msg[len - 1] == '\n';
    while (len > 0 && (last_msg[len - 1] == '\n' || last_msg[len - 1] == ' '))
        last_msg[--len] = '\0';
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* No single FFmpeg allocation over 1 GiB: a few hundred bytes of a damaged
 * file can claim a chunk of any length, and the demuxer would reserve it
 * before reading (it fails with ENOMEM instead).  A frame at the largest
 * picture the defaults accept is 100 MB. */
#define WB_AV_MAX_ALLOC ((size_t)1 << 30)

static void init_once_av(void)
{
    av_log_set_level(AV_LOG_WARNING);
    av_log_set_callback(quiet_log);
    av_max_alloc(WB_AV_MAX_ALLOC);
}

void wb_av_init(void)
{
    pthread_once(&init_once, init_once_av);
}

void wb_av_log_reset(void)
{
    last_msg[0] = '\0';
    last_msg_done = 1;
}

const char *wb_av_describe(int averr, char *buf, size_t n)
{
    char reason[AV_ERROR_MAX_STRING_SIZE];
    if (av_strerror(averr, reason, sizeof reason) < 0)
        snprintf(reason, sizeof reason, "libav error %d", averr);
    if (last_msg[0])
        snprintf(buf, n, "%s (%s)", reason, last_msg);
    else
        snprintf(buf, n, "%s", reason);
    return buf;
}

#include "io/av_common.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavformat/avformat.h>
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

/* ---- standard input as a file ----------------------------------------- */

static pthread_once_t stdin_once = PTHREAD_ONCE_INIT;
static unsigned char *stdin_buf;
static size_t stdin_len;
static int stdin_errno;

static void read_stdin(void)
{
    size_t cap = (size_t)1 << 16;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            stdin_len = 0;
            stdin_errno = ENOMEM;
            return;
        }
        stdin_len += fread(buf + stdin_len, 1, cap - stdin_len, stdin);
        if (stdin_len < cap)
            break;
        if (cap > WB_STDIN_MAX_BYTES) {
            free(buf);
            stdin_len = 0;
            stdin_errno = EFBIG;
            return;
        }
        unsigned char *more = realloc(buf, cap * 2);
        if (!more)
            free(buf);
        buf = more;
        cap *= 2;
    }
    if (ferror(stdin)) {
        free(buf);
        stdin_len = 0;
        stdin_errno = errno ? errno : EIO;
        return;
    }
    stdin_buf = buf;
}

int wb_av_stdin_bytes(const unsigned char **buf, size_t *len)
{
    pthread_once(&stdin_once, read_stdin);
    *buf = stdin_buf;
    *len = stdin_len;
    return stdin_errno;
}

FILE *wb_av_fopen(const char *path)
{
    if (strcmp(path, "-") != 0)
        return fopen(path, "rb");
    const unsigned char *buf;
    size_t len;
    int e = wb_av_stdin_bytes(&buf, &len);
    if (e || len == 0) {
        errno = e ? e : ENODATA;
        return NULL;
    }
    return fmemopen((void *)buf, len, "rb");
}

static int mem_read(void *opaque, uint8_t *dst, int n)
{
    WbAvInput *in = opaque;
    const unsigned char *buf;
    size_t len;
    wb_av_stdin_bytes(&buf, &len);
    size_t left = in->pos < len ? len - in->pos : 0;
    if (left == 0)
        return AVERROR_EOF;
    size_t k = (size_t)n < left ? (size_t)n : left;
    memcpy(dst, buf + in->pos, k);
    in->pos += k;
    return (int)k;
}

static int64_t mem_seek(void *opaque, int64_t off, int whence)
{
    WbAvInput *in = opaque;
    const unsigned char *buf;
    size_t len;
    wb_av_stdin_bytes(&buf, &len);
    if (whence & AVSEEK_SIZE)
        return (int64_t)len;
    int64_t base = (whence & 3) == SEEK_CUR ? (int64_t)in->pos
                 : (whence & 3) == SEEK_END ? (int64_t)len : 0;
    if (off > INT64_MAX - base || base + off < 0 || base + off > (int64_t)len)
        return AVERROR(EINVAL);
    in->pos = (size_t)(base + off);
    return (int64_t)in->pos;
}

int wb_av_open(WbAvInput *in, const char *path)
{
    memset(in, 0, sizeof *in);
    AVDictionary *opts = NULL;
    int ret;
    char url[4200];
    /* pattern_type none stops image2 reading "shot%03d.png" as a sequence. */
    av_dict_set(&opts, "pattern_type", "none", 0);
    if (strcmp(path, "-") == 0) {
        const unsigned char *buf;
        size_t len;
        int e = wb_av_stdin_bytes(&buf, &len);
        unsigned char *io = e ? NULL : av_malloc(4096);
        if (e || !io || !(in->fmt = avformat_alloc_context()) ||
            !(in->pb = avio_alloc_context(io, 4096, 0, in, mem_read, NULL, mem_seek))) {
            if (!in->pb)
                av_free(io);
            av_dict_free(&opts);
            wb_av_close(in);
            return AVERROR(e ? e : ENOMEM);
        }
        in->fmt->pb = in->pb;
        in->fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
        snprintf(url, sizeof url, "pipe:");
    } else {
        snprintf(url, sizeof url, "file:%s", path);
    }
    ret = avformat_open_input(&in->fmt, url, NULL, &opts);
    av_dict_free(&opts);
    if (ret >= 0)
        ret = avformat_find_stream_info(in->fmt, NULL);
    if (ret < 0)
        wb_av_close(in);
    return ret < 0 ? ret : 0;
}

void wb_av_close(WbAvInput *in)
{
    avformat_close_input(&in->fmt);
    if (in->pb)
        av_freep(&in->pb->buffer);
    avio_context_free(&in->pb);
}

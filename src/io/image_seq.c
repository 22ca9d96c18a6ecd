#include "io/image_seq.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "io/av_common.h"
#include "io/image_load.h"
#include "io/image_av.h"
#include "io/webp_anim.h"

/* Times closer than this are equal: a frame due at 0.7 s (70 cs) is shown at
 * step 168 of 240 per second although 70·0.01 and 168/240 differ in their
 * last bits. */
#define SEQ_EPS 1e-7

struct WbImageSeq {
    char path[4096];
    WbImageSeqInfo info;
    int w, h;                  /* the first frame's size */
    WbAvInput in;
    AVCodecContext *dec;
    AVPacket *pkt;
    int si;                    /* the video stream */
    bool started, eof;
    int64_t ts0;               /* the first frame's timestamp, stream time base */
    AVFrame *cur, *next;       /* shown frame; the one after it, when have_next */
    double cur_t, next_t;      /* their times in seconds from the first frame */
    bool have_next;
    int64_t cur_index, next_index;
    WbWebpAnim *webp;          /* an animated WebP, decoded by webp_anim.c */
    WbImage img;               /* cur as RGBA, once asked for */
    int64_t img_index;         /* the frame img holds; -1 none */
};

/* Open path and find its picture stream. */
static WbStatus open_input(WbAvInput *in, const char *path, int *si, const AVCodec **codec,
                           WbError *err)
{
    wb_av_init();
    wb_av_log_reset();
    int ret = wb_av_open(in, path);
    if (ret < 0)
        return wb_image_read_error(err, path, ret, NULL);
    *si = av_find_best_stream(in->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, codec, 0);
    if (*si < 0 || !*codec) {
        wb_av_close(in);
        return wb_image_read_error(err, path, 0, "no picture in it (not an image format FFmpeg decodes)");
    }
    return WB_OK;
}

/* One play lasts from the first packet's time to the end of the last one:
 * its time plus its duration, or plus the mean spacing when packets carry
 * no duration. */
static void webp_info(const WbWebpAnim *a, WbImageSeqInfo *info)
{
    info->frames = wb_webp_anim_frames(a);
    if (info->frames > 1) {
        info->duration = wb_webp_anim_time(a, info->frames);
        info->fps = (double)info->frames / info->duration;
    }
}

WbStatus wb_image_seq_probe(const char *path, WbImageSeqInfo *info, WbError *err)
{
    *info = (WbImageSeqInfo){.frames = 0};
    if (wb_webp_anim_file(path)) {
        WbWebpAnim *a;
        WbStatus st = wb_webp_anim_open(&a, path, err);
        if (!st)
            webp_info(a, info);
        wb_webp_anim_close(a);
        return st;
    }
    WbAvInput in;
    int si;
    const AVCodec *codec;
    WbStatus st = open_input(&in, path, &si, &codec, err);
    if (st)
        return st;
    AVPacket *pkt = av_packet_alloc();
    int64_t lo = INT64_MAX, hi = INT64_MIN, end = INT64_MIN;
    int ret = pkt ? 0 : AVERROR(ENOMEM);
    while (ret >= 0 && (ret = av_read_frame(in.fmt, pkt)) >= 0) {
        if (pkt->stream_index == si) {
            int64_t ts = pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
            info->frames++;
            if (ts != AV_NOPTS_VALUE) {
                lo = ts < lo ? ts : lo;
                hi = ts > hi ? ts : hi;
                if (pkt->duration > 0 && ts + pkt->duration > end)
                    end = ts + pkt->duration;
            }
        }
        av_packet_unref(pkt);
    }
    av_packet_free(&pkt);
    AVRational tb = in.fmt->streams[si]->time_base;
    AVRational rate = in.fmt->streams[si]->avg_frame_rate;
    wb_av_close(&in);
    if (ret != AVERROR_EOF)
        return wb_image_read_error(err, path, ret, NULL);
    if (info->frames < 2) {
        info->frames = info->frames < 1 ? 1 : info->frames;
        return WB_OK;
    }
    double span = hi > lo ? (double)(hi - lo) * av_q2d(tb) : 0;
    if (end > hi)
        info->duration = (double)(end - lo) * av_q2d(tb);
    else if (span > 0)
        info->duration = span * (double)info->frames / (double)(info->frames - 1);
    else if (rate.num > 0 && rate.den > 0)
        info->duration = (double)info->frames / av_q2d(rate);
    else
        info->duration = (double)info->frames / 25.0; /* no times at all: FFmpeg's default */
    info->fps = (double)info->frames / info->duration;
    return WB_OK;
}

/* (Re)open the input and its decoder at the start. */
static WbStatus restart(WbImageSeq *s, WbError *err)
{
    avcodec_free_context(&s->dec);
    wb_av_close(&s->in);
    const AVCodec *codec;
    WbStatus st = open_input(&s->in, s->path, &s->si, &codec, err);
    if (st)
        return st;
    int ret = AVERROR(ENOMEM);
    const AVCodecParameters *cp = s->in.fmt->streams[s->si]->codecpar;
    s->dec = avcodec_alloc_context3(codec);
    if (s->dec)
        s->dec->max_pixels = WB_IMAGE_DECODE_MAX_PIXELS;
    if (!s->dec || (ret = avcodec_parameters_to_context(s->dec, cp)) < 0)
        return wb_image_read_error(err, s->path, s->dec ? ret : AVERROR(ENOMEM), NULL);
    s->dec->thread_count = 1; /* frames are wanted one at a time, in order */
    if ((ret = avcodec_open2(s->dec, codec, NULL)) < 0)
        return wb_image_read_error(err, s->path, ret, NULL);
    s->eof = false;
    s->started = true;
    s->ts0 = AV_NOPTS_VALUE;
    return WB_OK;
}

/* Decode the next frame into fr; *got false at the end of the input. */
static WbStatus decode_next(WbImageSeq *s, AVFrame *fr, bool *got, WbError *err)
{
    *got = false;
    for (;;) {
        int ret = avcodec_receive_frame(s->dec, fr);
        if (ret >= 0)
            break;
        if (ret == AVERROR_EOF)
            return WB_OK;
        if (ret != AVERROR(EAGAIN))
            return wb_image_read_error(err, s->path, ret, NULL);
        if (s->eof)
            return WB_OK;
        ret = av_read_frame(s->in.fmt, s->pkt);
        if (ret == AVERROR_EOF) {
            s->eof = true;
            ret = avcodec_send_packet(s->dec, NULL);
        } else if (ret >= 0) {
            if (s->pkt->stream_index == s->si)
                ret = avcodec_send_packet(s->dec, s->pkt);
            av_packet_unref(s->pkt);
        }
        if (ret < 0 && ret != AVERROR(EAGAIN) && ret != AVERROR_EOF)
            return wb_image_read_error(err, s->path, ret, NULL);
    }
    if (fr->width != s->w || fr->height != s->h) {
        char what[160];
        snprintf(what, sizeof what, "a frame of %dx%d where the first is %dx%d (the size must "
                 "not change)", fr->width, fr->height, s->w, s->h);
        return wb_image_read_error(err, s->path, 0, what);
    }
    *got = true;
    return WB_OK;
}

/* The time of a decoded frame in seconds after the first (never before the
 * frame ahead of it: timestamps out of order are clamped). */
static double frame_time(WbImageSeq *s, const AVFrame *fr, int64_t index, double prev)
{
    int64_t ts = fr->best_effort_timestamp;
    double t;
    if (ts == AV_NOPTS_VALUE) {
        t = (double)index * s->info.duration / (double)s->info.frames;
    } else {
        if (s->ts0 == AV_NOPTS_VALUE)
            s->ts0 = ts;
        t = (double)(ts - s->ts0) * av_q2d(s->in.fmt->streams[s->si]->time_base);
    }
    return index == 0 ? 0.0 : t < prev ? prev : t;
}

/* Start over: the first frame current, the second ahead. */
static WbStatus rewind_seq(WbImageSeq *s, WbError *err)
{
    bool got;
    WbStatus st = restart(s, err);
    if (!st)
        st = decode_next(s, s->cur, &got, err);
    if (!st && !got)
        st = wb_image_read_error(err, s->path, 0, "no picture in it");
    if (st)
        return st;
    s->cur_index = 0;
    s->cur_t = frame_time(s, s->cur, 0, 0);
    st = decode_next(s, s->next, &s->have_next, err);
    s->next_index = 1;
    if (!st && s->have_next)
        s->next_t = frame_time(s, s->next, 1, s->cur_t);
    return st;
}

WbStatus wb_image_seq_seek(WbImageSeq *s, double t, int64_t *index, WbError *err)
{
    double d = s->info.duration;
    double local = t > 0 && d > 0 ? t - floor((t + SEQ_EPS) / d) * d : 0;
    local = local < 0 ? 0 : local;
    if (s->webp) {  /* the last frame starting at or before local */
        int64_t lo = 0, hi = s->info.frames - 1;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo + 1) / 2;
            if (wb_webp_anim_time(s->webp, mid) <= local + SEQ_EPS)
                lo = mid;
            else
                hi = mid - 1;
        }
        *index = s->cur_index = lo;
        return WB_OK;
    }
    WbStatus st = WB_OK;
    if (!s->started || local + SEQ_EPS < s->cur_t)
        st = rewind_seq(s, err);
    while (!st && s->have_next && s->next_t <= local + SEQ_EPS) {
        AVFrame *f = s->cur;
        s->cur = s->next;
        s->next = f;
        av_frame_unref(s->next);
        s->cur_index = s->next_index;
        s->cur_t = s->next_t;
        st = decode_next(s, s->next, &s->have_next, err);
        s->next_index = s->cur_index + 1;
        if (!st && s->have_next)
            s->next_t = frame_time(s, s->next, s->next_index, s->cur_t);
    }
    if (st)
        s->started = false; /* decode from the start next time */
    *index = s->cur_index;
    return st;
}

WbStatus wb_image_seq_image(WbImageSeq *s, const WbImage **img, WbError *err)
{
    if (s->webp)
        return wb_webp_anim_canvas(s->webp, s->cur_index, img, err);
    if (s->img_index != s->cur_index) {
        wb_image_free(&s->img);
        s->img_index = -1;
        WbStatus st = wb_image_from_avframe(s->cur, &s->img, s->path, err);
        if (st)
            return st;
        s->img_index = s->cur_index;
    }
    *img = &s->img;
    return WB_OK;
}

const WbImageSeqInfo *wb_image_seq_info(const WbImageSeq *s)
{
    return &s->info;
}

WbStatus wb_image_seq_open(WbImageSeq **out, const char *path, int64_t max_pixels, WbError *err)
{
    *out = NULL;
    WbImageSeqInfo info;
    WbStatus st = wb_image_seq_probe(path, &info, err);
    if (st || info.frames < 2)
        return st;
    WbImageSeq *s = calloc(1, sizeof *s);
    if (!s)
        return wb_error_set(err, WB_E_IO, "out of memory for the frames of '%s'", path);
    s->info = info;
    s->img_index = -1;
    snprintf(s->path, sizeof s->path, "%s", path);
    s->cur = av_frame_alloc();
    s->next = av_frame_alloc();
    s->pkt = av_packet_alloc();
    if (!s->cur || !s->next || !s->pkt)
        st = wb_error_set(err, WB_E_IO, "out of memory for the frames of '%s'", path);
    bool webp = !st && wb_webp_anim_file(path);
    if (webp) {
        st = wb_webp_anim_open(&s->webp, path, err);
        if (!st) {
            const WbImage *c;
            st = wb_webp_anim_canvas(s->webp, 0, &c, err);
            s->w = c->w;
            s->h = c->h;
        }
    } else if (!st) {
        st = restart(s, err);
    }
    if (!st && !webp) {
        const AVCodecParameters *cp = s->in.fmt->streams[s->si]->codecpar;
        s->w = cp->width;
        s->h = cp->height;
        if (s->w <= 0 || s->h <= 0 || s->w > 32768 || s->h > 32768)
            st = wb_image_read_error(err, path, 0, "picture size out of range");
    }
    if (!st && max_pixels > 0 && (int64_t)s->w * s->h > max_pixels)
        st = wb_error_set(err, WB_E_INPUT,
                          "'%s' has frames of %dx%d = %lld pixels, over the limit of %lld "
                          "(--max-pixels raises it)", path, s->w, s->h,
                          (long long)s->w * s->h, (long long)max_pixels);
    if (!st && !webp)
        st = rewind_seq(s, err);
    if (st) {
        wb_image_seq_close(s);
        return st;
    }
    *out = s;
    return WB_OK;
}

void wb_image_seq_close(WbImageSeq *s)
{
    if (!s)
        return;
    avcodec_free_context(&s->dec);
    wb_av_close(&s->in);
    wb_webp_anim_close(s->webp);
    av_packet_free(&s->pkt);
    av_frame_free(&s->cur);
    av_frame_free(&s->next);
    wb_image_free(&s->img);
    free(s);
}

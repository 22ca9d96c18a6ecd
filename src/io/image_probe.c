/* image_probe.c — see image_probe.h.
 *
 * avformat_find_stream_info is not used: for a format without a parser it
 * decodes the first picture to learn its size, which is the very cost to
 * avoid.  Instead the decoder gets the first packet with a get_buffer2
 * callback that records the frame's size and refuses it: decoders parse
 * their header, set the size and then ask for the buffer, so the size is
 * known before any pixel memory exists.
 */
#include "io/image_probe.h"

#include <errno.h>
#include <stdio.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "io/av_common.h"

/* Packets read before giving up on the stream's first one. */
#define PROBE_MAX_PACKETS 64

static int refuse_buffer(AVCodecContext *c, AVFrame *frame, int flags)
{
    (void)flags;
    int64_t *wh = c->opaque;
    wh[0] = frame->width;
    wh[1] = frame->height;
    return AVERROR(ENOMEM);
}

/* Hand the stream's first packet to a decoder that stops at its buffer. */
static void decoder_size(AVFormatContext *fmt, int si, int64_t wh[2])
{
    const AVCodec *codec = avcodec_find_decoder(fmt->streams[si]->codecpar->codec_id);
    AVCodecContext *dec = codec ? avcodec_alloc_context3(codec) : NULL;
    AVPacket *pkt = av_packet_alloc();
    if (!dec || !pkt || avcodec_parameters_to_context(dec, fmt->streams[si]->codecpar) < 0)
        goto out;
    dec->opaque = wh;
    dec->get_buffer2 = refuse_buffer;
    dec->thread_count = 1; /* the callback on this thread, no frame threads */
    if (avcodec_open2(dec, codec, NULL) < 0)
        goto out;
    for (int n = 0; n < PROBE_MAX_PACKETS && av_read_frame(fmt, pkt) >= 0; n++) {
        bool ours = pkt->stream_index == si;
        if (ours && avcodec_send_packet(dec, pkt) >= 0) {
            AVFrame *frame = av_frame_alloc();
            if (frame && avcodec_receive_frame(dec, frame) >= 0 && wh[0] <= 0) {
                wh[0] = frame->width; /* a decoder that allocates on its own */
                wh[1] = frame->height;
            }
            av_frame_free(&frame);
        }
        av_packet_unref(pkt);
        if (ours)
            break;
    }
    /* Decoders that keep the size in the context once parsed. */
    if (wh[0] <= 0 && dec->width > 0 && dec->height > 0) {
        wh[0] = dec->width;
        wh[1] = dec->height;
    }
out:
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
}

bool wb_image_probe_size(const char *path, int64_t *w, int64_t *h)
{
    wb_av_init();
    AVFormatContext *fmt = NULL;
    AVDictionary *opts = NULL;
    char url[4200];
    /* As the loader opens it (image_load.c): the file protocol, no
     * sequence patterns. */
    snprintf(url, sizeof url, "file:%s", path);
    av_dict_set(&opts, "pattern_type", "none", 0);
    int ret = avformat_open_input(&fmt, url, NULL, &opts);
    av_dict_free(&opts);
    if (ret < 0)
        return false;
    int64_t wh[2] = {0, 0};
    int si = -1;
    for (unsigned i = 0; i < fmt->nb_streams && si < 0; i++)
        if (fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO)
            si = (int)i;
    if (si >= 0) {
        const AVCodecParameters *par = fmt->streams[si]->codecpar;
        if (par->width > 0 && par->height > 0) {
            wh[0] = par->width;
            wh[1] = par->height;
        } else {
            decoder_size(fmt, si, wh);
        }
    }
    avformat_close_input(&fmt);
    wb_av_log_reset();
    if (wh[0] <= 0 || wh[1] <= 0)
        return false;
    *w = wh[0];
    *h = wh[1];
    return true;
}

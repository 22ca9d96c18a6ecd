#include "io/image_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "io/av_common.h"

/* ---- EXIF orientation ------------------------------------------------
 * FFmpeg 5.1's mjpeg decoder does not reliably turn EXIF orientation into
 * something we can read, so the tag is read from the file: walk the JPEG
 * markers up to the first scan, find APP1 "Exif\0\0", then IFD0 of the TIFF
 * structure inside and its tag 0x0112 (SHORT).  Every offset is checked
 * against the segment length; anything odd means "no orientation" (1). */

static unsigned rd16(const unsigned char *p, bool le)
{
    return le ? (unsigned)(p[0] | p[1] << 8) : (unsigned)(p[0] << 8 | p[1]);
}

static unsigned long rd32(const unsigned char *p, bool le)
{
    return le ? (unsigned long)p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 |
                    (unsigned long)p[3] << 24
              : (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 |
                    (unsigned long)p[2] << 8 | (unsigned long)p[3];
}

/* Orientation from a TIFF block (the APP1 payload after "Exif\0\0"). */
static int tiff_orientation(const unsigned char *t, size_t n)
{
    if (n < 8)
        return 1;
    bool le;
    if (t[0] == 'I' && t[1] == 'I')
        le = true;
    else if (t[0] == 'M' && t[1] == 'M')
        le = false;
    else
        return 1;
    if (rd16(t + 2, le) != 42)
        return 1;
    unsigned long ifd = rd32(t + 4, le);
    if (ifd > n - 2)
        return 1;
    unsigned count = rd16(t + ifd, le);
    for (unsigned i = 0; i < count; i++) {
        unsigned long e = ifd + 2 + 12ul * i;
        if (e + 12 > n)
            return 1;
        if (rd16(t + e, le) == 0x0112 && rd16(t + e + 2, le) == 3) {
            unsigned v = rd16(t + e + 8, le);
            return v >= 1 && v <= 8 ? (int)v : 1;
        }
    }
    return 1;
}

int wb_image_exif_orientation(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 1;
    int orient = 1;
    unsigned char m[4];
    if (fread(m, 1, 2, f) != 2 || m[0] != 0xFF || m[1] != 0xD8)
        goto done;
    /* Markers before the first scan; APPn segments are at most 64 KiB. */
    for (int seg = 0; seg < 64; seg++) {
        if (fread(m, 1, 4, f) != 4 || m[0] != 0xFF)
            break;
        unsigned marker = m[1], len = (unsigned)(m[2] << 8 | m[3]);
        if (marker == 0xDA || marker == 0xD9 || len < 2)
            break;
        if (marker == 0xE1 && len >= 2 + 6 + 8) {
            unsigned char *buf = malloc(len - 2);
            if (!buf)
                break;
            bool got = fread(buf, 1, len - 2, f) == len - 2;
            if (got && memcmp(buf, "Exif\0\0", 6) == 0)
                orient = tiff_orientation(buf + 6, len - 2 - 6);
            free(buf);
            if (!got || orient != 1)
                break;
            continue;
        }
        if (fseek(f, (long)len - 2, SEEK_CUR) != 0)
            break;
    }
done:
    fclose(f);
    return orient;
}

/* Apply EXIF orientation o to img (replacing it).  For every output pixel
 * (x, y) of the W'×H' result, the source pixel in the w×h input is:
 *   1 (x, y)            2 (w-1-x, y)         3 (w-1-x, h-1-y)   4 (x, h-1-y)
 *   5 (y, x)            6 (y, h-1-x)         7 (w-1-y, h-1-x)   8 (w-1-y, x)
 * where 5..8 swap the sides (W' = h, H' = w).  6 is "rotate 90° clockwise to
 * display", 8 is 90° counter-clockwise, 5/7 are the two diagonal mirrors. */
static WbStatus apply_orientation(WbImage *img, int o, WbError *err)
{
    if (o == 1)
        return WB_OK;
    int w = img->w, h = img->h;
    bool swap = o >= 5;
    WbImage out;
    WbStatus st = wb_image_alloc(&out, swap ? h : w, swap ? w : h, err);
    if (st)
        return st;
    for (int y = 0; y < out.h; y++) {
        uint32_t *dst = (uint32_t *)(void *)wb_image_row(&out, y);
        for (int x = 0; x < out.w; x++) {
            int sx, sy;
            switch (o) {
            case 2: sx = w - 1 - x; sy = y; break;
            case 3: sx = w - 1 - x; sy = h - 1 - y; break;
            case 4: sx = x; sy = h - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = h - 1 - x; break;
            case 7: sx = w - 1 - y; sy = h - 1 - x; break;
            default: sx = w - 1 - y; sy = x; break; /* 8 */
            }
            memcpy(&dst[x], wb_image_row(img, sy) + 4 * (ptrdiff_t)sx, 4);
        }
    }
    wb_image_free(img);
    *img = out;
    return WB_OK;
}

/* ---- decoding ------------------------------------------------------- */

static WbStatus load_error(WbError *err, const char *path, int averr, const char *what)
{
    char why[640];
    if (averr)
        wb_av_describe(averr, why, sizeof why);
    else
        snprintf(why, sizeof why, "%s", what);
    return wb_error_set(err, WB_E_INPUT, "cannot read image '%s': %s", path, why);
}

/* Decode the first picture of path into *frame. */
static WbStatus decode_first(const char *path, AVFrame *frame, WbError *err)
{
    AVFormatContext *fmt = NULL;
    AVCodecContext *dec = NULL;
    AVPacket *pkt = av_packet_alloc();
    AVDictionary *opts = NULL;
    WbStatus st = WB_OK;
    int ret;
    char url[4200];

    /* "file:" keeps a path like "http://x" or "a:b" on the file protocol, and
     * pattern_type none stops image2 reading "shot%03d.png" as a sequence. */
    snprintf(url, sizeof url, "file:%s", path);
    av_dict_set(&opts, "pattern_type", "none", 0);
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        st = load_error(err, path, 0, strerror(errno));
        goto out;
    }
    fclose(probe);
    if (!pkt) {
        st = load_error(err, path, AVERROR(ENOMEM), NULL);
        goto out;
    }
    if ((ret = avformat_open_input(&fmt, url, NULL, &opts)) < 0) {
        st = load_error(err, path, ret, NULL);
        goto out;
    }
    if ((ret = avformat_find_stream_info(fmt, NULL)) < 0) {
        st = load_error(err, path, ret, NULL);
        goto out;
    }
    const AVCodec *codec = NULL;
    int si = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (si < 0 || !codec) {
        st = load_error(err, path, 0, "no picture in it (not an image format FFmpeg decodes)");
        goto out;
    }
    dec = avcodec_alloc_context3(codec);
    /* A JPEG cut short is an error, not a picture: without EXPLODE the
     * decoder conceals the damage ("EOI missing, emulating") and hands back
     * a frame with the missing rows made up.  Only JPEG: the other decoders
     * already fail on a cut file, and EXPLODE would make the TIFF decoder
     * refuse harmless tags it does not know. */
    if (dec && codec->id == AV_CODEC_ID_MJPEG)
        dec->err_recognition |= AV_EF_EXPLODE;
    if (!dec || (ret = avcodec_parameters_to_context(dec, fmt->streams[si]->codecpar)) < 0 ||
        (ret = avcodec_open2(dec, codec, NULL)) < 0) {
        st = load_error(err, path, dec ? ret : AVERROR(ENOMEM), NULL);
        goto out;
    }
    bool eof = false;
    for (;;) {
        ret = avcodec_receive_frame(dec, frame);
        if (ret >= 0)
            break;
        if (ret != AVERROR(EAGAIN) || eof) {
            st = load_error(err, path, ret == AVERROR_EOF ? 0 : ret, "no picture in it");
            goto out;
        }
        ret = av_read_frame(fmt, pkt);
        if (ret == AVERROR_EOF) {
            eof = true;
            ret = avcodec_send_packet(dec, NULL);
        } else if (ret < 0) {
            st = load_error(err, path, ret, NULL);
            goto out;
        } else {
            if (pkt->stream_index == si)
                ret = avcodec_send_packet(dec, pkt);
            av_packet_unref(pkt);
        }
        if (ret < 0 && ret != AVERROR(EAGAIN)) {
            st = load_error(err, path, ret, NULL);
            goto out;
        }
    }
    if (frame->width <= 0 || frame->height <= 0 || frame->width > 32768 ||
        frame->height > 32768)
        st = load_error(err, path, 0, "picture size out of range");
out:
    av_dict_free(&opts);
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    avformat_close_input(&fmt);
    return st;
}

/* Convert a decoded frame to straight RGBA8.  Grey formats are full range
 * (PNG grey 128 must stay 128), so swscale is told so explicitly; YUV
 * pictures keep the range the decoder reported (JPEG: full, via yuvj).
 * Deeper than 8 bits goes through RGBA64 and is rounded here, because
 * swscale dithers when it drops bits and a 16-bit PNG of v·257 must read
 * back as v: out = (v·255 + 32895) >> 16 is round(v/257) for all v. */
static WbStatus frame_to_rgba(const AVFrame *fr, WbImage *img, const char *path, WbError *err)
{
    WbStatus st = wb_image_alloc(img, fr->width, fr->height, err);
    if (st)
        return st;
    enum AVPixelFormat src = fr->format;
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(src);
    if (!d) {
        wb_image_free(img);
        return load_error(err, path, 0, "unsupported pixel layout");
    }
    bool deep = d->comp[0].depth > 8;
    enum AVPixelFormat dst_fmt = deep ? AV_PIX_FMT_RGBA64 : AV_PIX_FMT_RGBA;
    struct SwsContext *sws = sws_getContext(fr->width, fr->height, src, fr->width, fr->height,
                                            dst_fmt,
                                            SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT,
                                            NULL, NULL, NULL);
    uint16_t *wide = deep ? malloc((size_t)fr->width * 8 * (size_t)fr->height) : NULL;
    if (!sws || (deep && !wide)) {
        sws_freeContext(sws);
        free(wide);
        wb_image_free(img);
        return load_error(err, path, 0, sws ? "out of memory" : "unsupported pixel layout");
    }
    bool rgbish = d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL);
    if (!rgbish) {
        int *inv, *tab, sr, dr, b, c, s;
        if (sws_getColorspaceDetails(sws, &inv, &sr, &tab, &dr, &b, &c, &s) >= 0) {
            bool full = fr->color_range == AVCOL_RANGE_JPEG || d->nb_components <= 2;
            const int *coef = sws_getCoefficients(fr->colorspace == AVCOL_SPC_BT709
                                                      ? SWS_CS_ITU709 : SWS_CS_DEFAULT);
            sws_setColorspaceDetails(sws, coef, full ? 1 : sr, tab, 1, b, c, s);
        }
    }
    uint8_t *dst[4] = {deep ? (uint8_t *)wide : img->px};
    int dst_stride[4] = {deep ? fr->width * 8 : (int)img->stride};
    int rows = sws_scale(sws, (const uint8_t *const *)fr->data, fr->linesize, 0, fr->height, dst,
                         dst_stride);
    sws_freeContext(sws);
    if (deep && rows == fr->height) {
        for (int y = 0; y < fr->height; y++) {
            const uint16_t *in = wide + (size_t)y * (size_t)fr->width * 4;
            uint8_t *out = wb_image_row(img, y);
            for (int i = 0; i < fr->width * 4; i++)
                out[i] = (uint8_t)(((uint32_t)in[i] * 255u + 32895u) >> 16);
        }
    }
    free(wide);
    if (rows != fr->height) {
        wb_image_free(img);
        return load_error(err, path, 0, "pixel conversion failed");
    }
    return WB_OK;
}

WbStatus wb_image_load(const char *path, WbImage *out, bool *has_alpha, WbError *err)
{
    memset(out, 0, sizeof *out);
    wb_av_init();
    wb_av_log_reset();
    AVFrame *frame = av_frame_alloc();
    if (!frame)
        return load_error(err, path, AVERROR(ENOMEM), NULL);
    WbStatus st = decode_first(path, frame, err);
    if (st == WB_OK)
        st = frame_to_rgba(frame, out, path, err);
    av_frame_free(&frame);
    if (st == WB_OK)
        st = apply_orientation(out, wb_image_exif_orientation(path), err);
    if (st != WB_OK) {
        wb_image_free(out);
        return st;
    }
    if (has_alpha)
        *has_alpha = wb_image_has_alpha(out);
    return WB_OK;
}

WbStatus wb_mask_load(const char *path, float **weights, int *w, int *h, WbError *err)
{
    *weights = NULL;
    *w = *h = 0;
    WbImage img;
    bool alpha;
    WbStatus st = wb_image_load(path, &img, &alpha, err);
    if (st)
        return st;
    float *wt = malloc(sizeof *wt * (size_t)img.w * (size_t)img.h);
    if (!wt) {
        wb_image_free(&img);
        return wb_error_set(err, WB_E_IO, "out of memory for the mask '%s'", path);
    }
    for (int y = 0; y < img.h; y++) {
        const uint8_t *p = wb_image_row(&img, y);
        float *row = wt + (size_t)y * (size_t)img.w;
        for (int x = 0; x < img.w; x++, p += 4) {
            /* Grey images decode to R = G = B: take that value as is. */
            float v = alpha                           ? p[3]
                      : p[0] == p[1] && p[1] == p[2] ? p[0]
                      : 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
            v /= 255.0f;
            row[x] = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
        }
    }
    *weights = wt;
    *w = img.w;
    *h = img.h;
    wb_image_free(&img);
    return WB_OK;
}

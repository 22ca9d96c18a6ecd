#include "io/image_load.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "io/av_common.h"
#include "io/image_av.h"
#include "io/webp_anim.h"

/* ---- EXIF orientation ------------------------------------------------
 * The decoders of FFmpeg 5.1 leave the pixels in stored order whatever the
 * file says (mjpeg and webp at most copy the tag into frame metadata, png
 * and tiff do not even read it), so the tag is read from the file here and
 * applied once, by apply_orientation below.
 *
 * Every format that can carry an orientation keeps it in a TIFF structure:
 * the tag is 0x0112 (SHORT, 1..8) in IFD0.  A small finder per format,
 * chosen by the magic bytes, locates that structure in the file and hands
 * its place and size to tiff_orientation:
 *   JPEG  FF D8 FF                APP1 "Exif\0\0" + TIFF, before the scan
 *   PNG   89 "PNG" 0D 0A 1A 0A    eXIf chunk, before IDAT (PNG 1.5 extension)
 *   WebP  "RIFF" size "WEBP"      VP8X extended format: its EXIF chunk
 *   TIFF  "II*\0" or "MM\0*"      the file itself
 * PNG and WebP hold a bare TIFF block, but some writers put "Exif\0\0" in
 * front as in JPEG: both are accepted.  BMP and GIF have no orientation.
 * The file is read at the offsets the structure names (never as a whole: a
 * TIFF often keeps IFD0 after the pixels), and each offset and length is
 * checked against the block or the file first; anything odd, cut short or
 * unknown means "no orientation" (1). */

static unsigned rd16(const unsigned char *p, bool le)
{
    return le ? (unsigned)(p[0] | p[1] << 8) : (unsigned)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const unsigned char *p, bool le)
{
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* n bytes at offset off of f into buf; false when the file is shorter. */
static bool read_at(FILE *f, uint64_t off, void *buf, size_t n)
{
    if (off > (uint64_t)INT64_MAX || fseeko(f, (off_t)off, SEEK_SET) != 0)
        return false;
    return fread(buf, 1, n, f) == n;
}

/* Orientation from the TIFF structure occupying bytes [base, base + n) of f:
 * the header (byte order, 42, offset of IFD0, all relative to base), then
 * IFD0's entry count and its 12-byte entries {tag, type, count, value}.  A
 * SHORT value sits in the first two bytes of the value field.  Entries that
 * would run past the block are not read. */
static int tiff_orientation(FILE *f, uint64_t base, uint64_t n)
{
    unsigned char h[12];
    if (n < 8 || !read_at(f, base, h, 8))
        return 1;
    bool le;
    if (h[0] == 'I' && h[1] == 'I')
        le = true;
    else if (h[0] == 'M' && h[1] == 'M')
        le = false;
    else
        return 1;
    if (rd16(h + 2, le) != 42)
        return 1;
    uint64_t ifd = rd32(h + 4, le);
    if (ifd < 8 || ifd > n - 2 || !read_at(f, base + ifd, h, 2))
        return 1;
    uint64_t count = rd16(h, le), room = (n - ifd - 2) / 12;
    if (count > room)
        count = room;
    for (uint64_t i = 0; i < count; i++) {
        if (fread(h, 1, 12, f) != 12)
            return 1;
        if (rd16(h, le) == 0x0112 && rd16(h + 2, le) == 3) {
            unsigned v = rd16(h + 8, le);
            return v >= 1 && v <= 8 ? (int)v : 1;
        }
    }
    return 1;
}

/* A PNG/WebP EXIF payload: a TIFF block, maybe behind "Exif\0\0". */
static int exif_payload_orientation(FILE *f, uint64_t base, uint64_t n)
{
    unsigned char id[6];
    if (n >= 6 + 8 && read_at(f, base, id, 6) && memcmp(id, "Exif\0\0", 6) == 0)
        return tiff_orientation(f, base + 6, n - 6);
    return tiff_orientation(f, base, n);
}

/* JPEG: the markers before the first scan (APPn segments are at most
 * 64 KiB).  An APP1 that is not Exif (XMP) is skipped, and so is an Exif
 * block without the tag, in case a later one has it. */
static int jpeg_orientation(FILE *f)
{
    uint64_t pos = 2;
    for (int seg = 0; seg < 64; seg++) {
        unsigned char m[6];
        if (!read_at(f, pos, m, 4) || m[0] != 0xFF)
            return 1;
        unsigned marker = m[1], len = rd16(m + 2, false);
        if (marker == 0xDA || marker == 0xD9 || len < 2)
            return 1;
        if (marker == 0xE1 && len >= 2 + 6 + 8 && read_at(f, pos + 4, m, 6) &&
            memcmp(m, "Exif\0\0", 6) == 0) {
            int o = tiff_orientation(f, pos + 4 + 6, len - 2 - 6);
            if (o != 1)
                return o;
        }
        pos += 2 + (uint64_t)len;
    }
    return 1;
}

/* PNG: after the signature, chunks {length (BE, < 2^31), type, data, CRC}
 * up to the first IDAT, which eXIf must precede. */
static int png_orientation(FILE *f)
{
    uint64_t pos = 8;
    for (;;) {
        unsigned char c[8];
        if (!read_at(f, pos, c, 8))
            return 1;
        uint32_t len = rd32(c, false);
        if (len > 0x7FFFFFFFu || memcmp(c + 4, "IDAT", 4) == 0 || memcmp(c + 4, "IEND", 4) == 0)
            return 1;
        if (memcmp(c + 4, "eXIf", 4) == 0)
            return exif_payload_orientation(f, pos + 8, len);
        pos += 8 + (uint64_t)len + 4;
    }
}

/* WebP: RIFF chunks {fourcc, size (LE), data, a pad byte when size is odd}
 * inside the RIFF size.  Only the extended format (VP8X first) carries
 * metadata; its EXIF chunk comes after the image data. */
static int webp_orientation(FILE *f, uint64_t file_size)
{
    unsigned char c[8];
    if (!read_at(f, 4, c, 4))
        return 1;
    uint64_t end = 8 + (uint64_t)rd32(c, true);
    if (end > file_size)
        end = file_size;
    for (uint64_t pos = 12; pos + 8 <= end;) {
        if (!read_at(f, pos, c, 8))
            return 1;
        uint64_t len = rd32(c + 4, true);
        if (pos == 12 && memcmp(c, "VP8X", 4) != 0)
            return 1;
        if (len > end - pos - 8)
            return 1;
        if (memcmp(c, "EXIF", 4) == 0)
            return exif_payload_orientation(f, pos + 8, len);
        pos += 8 + len + (len & 1);
    }
    return 1;
}

int wb_image_exif_orientation(const char *path)
{
    FILE *f = wb_av_fopen(path);
    if (!f)
        return 1;
    int orient = 1;
    unsigned char m[12];
    uint64_t size = 0;
    if (fseeko(f, 0, SEEK_END) == 0) {
        off_t end = ftello(f);
        size = end > 0 ? (uint64_t)end : 0;
    }
    if (size >= sizeof m && read_at(f, 0, m, sizeof m)) {
        if (m[0] == 0xFF && m[1] == 0xD8 && m[2] == 0xFF)
            orient = jpeg_orientation(f);
        else if (memcmp(m, "\x89PNG\r\n\x1a\n", 8) == 0)
            orient = png_orientation(f);
        else if (memcmp(m, "RIFF", 4) == 0 && memcmp(m + 8, "WEBP", 4) == 0)
            orient = webp_orientation(f, size);
        else if (memcmp(m, "II*\0", 4) == 0 || memcmp(m, "MM\0*", 4) == 0)
            orient = tiff_orientation(f, 0, size);
    }
    fclose(f);
    return orient;
}

/* ---- header size ---------------------------------------------------- */

static bool jpeg_size(FILE *f, int64_t *w, int64_t *h)
{
    uint64_t pos = 2;
    for (int seg = 0; seg < 256; seg++) {
        unsigned char m[9];
        if (!read_at(f, pos, m, 4) || m[0] != 0xFF)
            return false;
        unsigned marker = m[1], len = rd16(m + 2, false);
        if (marker == 0xFF) { /* fill byte */
            pos++;
            continue;
        }
        if (marker == 0xDA || marker == 0xD9 || len < 2)
            return false;
        /* SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC) */
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 &&
            marker != 0xCC) {
            if (!read_at(f, pos + 4, m, 5))
                return false;
            *h = rd16(m + 1, false);
            *w = rd16(m + 3, false);
            return true;
        }
        pos += 2 + (uint64_t)len;
    }
    return false;
}

/* The size a VP8 or VP8L bitstream header states (its chunk's first bytes). */
static bool webp_bitstream_size(const unsigned char *fourcc, const unsigned char *d, int64_t *w,
                                int64_t *h)
{
    if (memcmp(fourcc, "VP8L", 4) == 0) {
        uint32_t b = rd32(d + 1, true);
        *w = 1 + (int64_t)(b & 0x3FFF);
        *h = 1 + (int64_t)((b >> 14) & 0x3FFF);
    } else if (memcmp(fourcc, "VP8 ", 4) == 0) {
        *w = rd16(d + 6, true) & 0x3FFF;
        *h = rd16(d + 8, true) & 0x3FFF;
    } else {
        return false;
    }
    return true;
}

/* WebP: the simple formats state one size; the extended one (VP8X) a
 * canvas, and its picture chunk may claim more: the decoder allocates what
 * the bitstream says, so the larger of the two counts. */
static bool webp_size(FILE *f, int64_t *w, int64_t *h)
{
    unsigned char c[30];
    if (!read_at(f, 0, c, 30))
        return false;
    if (memcmp(c + 12, "VP8X", 4) != 0)
        return webp_bitstream_size(c + 12, c + 20, w, h);
    *w = 1 + (int64_t)(c[24] | c[25] << 8 | c[26] << 16);
    *h = 1 + (int64_t)(c[27] | c[28] << 8 | c[29] << 16);
    uint64_t pos = 30;
    for (int i = 0; i < 64; i++) {
        unsigned char k[18];
        if (!read_at(f, pos, k, 18))
            break;
        int64_t bw, bh;
        if (webp_bitstream_size(k, k + 8, &bw, &bh)) {
            *w = bw > *w ? bw : *w;
            *h = bh > *h ? bh : *h;
            break;
        }
        pos += 8 + (uint64_t)rd32(k + 4, true) + (rd32(k + 4, true) & 1);
    }
    return true;
}

/* TIFF IFD0's ImageWidth (256) and ImageLength (257), SHORT or LONG. */
static bool tiff_size(FILE *f, int64_t *w, int64_t *h)
{
    unsigned char b[12];
    if (!read_at(f, 0, b, 8))
        return false;
    bool le = b[0] == 'I';
    uint64_t ifd = rd32(b + 4, le);
    if (!read_at(f, ifd, b, 2))
        return false;
    unsigned count = rd16(b, le);
    *w = *h = -1;
    for (unsigned i = 0; i < count && i < 4096; i++) {
        if (fread(b, 1, 12, f) != 12)
            return false;
        unsigned tag = rd16(b, le), type = rd16(b + 2, le);
        int64_t v = type == 3 ? (int64_t)rd16(b + 8, le) : type == 4 ? (int64_t)rd32(b + 8, le) : -1;
        if (tag == 256)
            *w = v;
        else if (tag == 257)
            *h = v;
    }
    return *w >= 0 && *h >= 0;
}

bool wb_image_header_size(const char *path, int64_t *w, int64_t *h)
{
    FILE *f = wb_av_fopen(path);
    if (!f)
        return false;
    unsigned char m[30];
    bool ok = false;
    if (read_at(f, 0, m, 26)) {
        if (m[0] == 0xFF && m[1] == 0xD8 && m[2] == 0xFF) {
            ok = jpeg_size(f, w, h);
        } else if (memcmp(m, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(m + 12, "IHDR", 4) == 0) {
            *w = rd32(m + 16, false);
            *h = rd32(m + 20, false);
            ok = true;
        } else if (memcmp(m, "GIF8", 4) == 0) {
            *w = rd16(m + 6, true);
            *h = rd16(m + 8, true);
            ok = true;
        } else if (m[0] == 'B' && m[1] == 'M') {
            *w = (int32_t)rd32(m + 18, true);
            *h = (int32_t)rd32(m + 22, true);
            *w = *w < 0 ? -*w : *w;
            *h = *h < 0 ? -*h : *h;
            ok = true;
        } else if (memcmp(m, "RIFF", 4) == 0 && memcmp(m + 8, "WEBP", 4) == 0) {
            ok = webp_size(f, w, h);
        } else if (memcmp(m, "II*\0", 4) == 0 || memcmp(m, "MM\0*", 4) == 0) {
            ok = tiff_size(f, w, h);
        }
    }
    fclose(f);
    return ok;
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

WbStatus wb_image_read_error(WbError *err, const char *path, int averr, const char *what)
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
    WbAvInput in = {0};
    AVCodecContext *dec = NULL;
    AVPacket *pkt = av_packet_alloc();
    WbStatus st = WB_OK;
    int ret;

    FILE *probe = wb_av_fopen(path);
    if (!probe) {
        bool none = errno == ENODATA && strcmp(path, "-") == 0;
        st = wb_image_read_error(err, path, 0, none ? "standard input is empty (or held the scene)"
                                           : strerror(errno));
        goto out;
    }
    fclose(probe);
    if (!pkt) {
        st = wb_image_read_error(err, path, AVERROR(ENOMEM), NULL);
        goto out;
    }
    if ((ret = wb_av_open(&in, path)) < 0) {
        st = wb_image_read_error(err, path, ret, NULL);
        goto out;
    }
    AVFormatContext *fmt = in.fmt;
    const AVCodec *codec = NULL;
    int si = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (si < 0 || !codec) {
        st = wb_image_read_error(err, path, 0, "no picture in it (not an image format FFmpeg decodes)");
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
    /* The last guard against a header that lies: no picture over 1 GiB of
     * RGBA (the limit users set is checked from the header before this). */
    if (dec)
        dec->max_pixels = WB_IMAGE_DECODE_MAX_PIXELS;
    if (!dec || (ret = avcodec_parameters_to_context(dec, fmt->streams[si]->codecpar)) < 0 ||
        (ret = avcodec_open2(dec, codec, NULL)) < 0) {
        st = wb_image_read_error(err, path, dec ? ret : AVERROR(ENOMEM), NULL);
        goto out;
    }
    bool eof = false;
    for (;;) {
        ret = avcodec_receive_frame(dec, frame);
        if (ret >= 0)
            break;
        if (ret != AVERROR(EAGAIN) || eof) {
            st = wb_image_read_error(err, path, ret == AVERROR_EOF ? 0 : ret, "no picture in it");
            goto out;
        }
        ret = av_read_frame(fmt, pkt);
        if (ret == AVERROR_EOF) {
            eof = true;
            ret = avcodec_send_packet(dec, NULL);
        } else if (ret < 0) {
            st = wb_image_read_error(err, path, ret, NULL);
            goto out;
        } else {
            if (pkt->stream_index == si)
                ret = avcodec_send_packet(dec, pkt);
            av_packet_unref(pkt);
        }
        if (ret < 0 && ret != AVERROR(EAGAIN)) {
            st = wb_image_read_error(err, path, ret, NULL);
            goto out;
        }
    }
    if (frame->width <= 0 || frame->height <= 0 || frame->width > 32768 ||
        frame->height > 32768)
        st = wb_image_read_error(err, path, 0, "picture size out of range");
out:
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    wb_av_close(&in);
    return st;
}

/* Convert a decoded frame to straight RGBA8.  Grey formats are full range
 * (PNG grey 128 must stay 128), so swscale is told so explicitly; YUV
 * pictures keep the range the decoder reported (JPEG: full, via yuvj).
 * Deeper than 8 bits goes through RGBA64 and is rounded here, because
 * swscale dithers when it drops bits and a 16-bit PNG of v·257 must read
 * back as v: out = (v·255 + 32895) >> 16 is round(v/257) for all v. */
WbStatus wb_image_from_avframe(const AVFrame *fr, WbImage *img, const char *path, WbError *err)
{
    WbStatus st = wb_image_alloc(img, fr->width, fr->height, err);
    if (st)
        return st;
    enum AVPixelFormat src = fr->format;
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(src);
    if (!d) {
        wb_image_free(img);
        return wb_image_read_error(err, path, 0, "unsupported pixel layout");
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
        return wb_image_read_error(err, path, 0, sws ? "out of memory" : "unsupported pixel layout");
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
        return wb_image_read_error(err, path, 0, "pixel conversion failed");
    }
    return WB_OK;
}

/* An animated WebP's first frame on its canvas (FFmpeg 5 decodes none). */
static WbStatus load_webp_anim(const char *path, WbImage *out, WbError *err)
{
    WbWebpAnim *a;
    const WbImage *c;
    WbStatus st = wb_webp_anim_open(&a, path, err);
    if (!st)
        st = wb_webp_anim_canvas(a, 0, &c, err);
    if (!st)
        st = wb_image_alloc(out, c->w, c->h, err);
    for (int y = 0; !st && y < c->h; y++)
        memcpy(wb_image_row(out, y), wb_image_row(c, y), 4 * (size_t)c->w);
    wb_webp_anim_close(a);
    return st;
}

WbStatus wb_image_load(const char *path, WbImage *out, bool *has_alpha, WbError *err)
{
    memset(out, 0, sizeof *out);
    wb_av_init();
    wb_av_log_reset();
    if (wb_webp_anim_file(path)) {
        WbStatus st = load_webp_anim(path, out, err);
        if (!st && has_alpha)
            *has_alpha = wb_image_has_alpha(out);
        return st;
    }
    AVFrame *frame = av_frame_alloc();
    if (!frame)
        return wb_image_read_error(err, path, AVERROR(ENOMEM), NULL);
    WbStatus st = decode_first(path, frame, err);
    if (st == WB_OK)
        st = wb_image_from_avframe(frame, out, path, err);
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

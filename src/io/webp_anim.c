#include "io/webp_anim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>

#include "io/av_common.h"
#include "io/image_load.h"
#include "io/image_av.h"

typedef struct AnimFrame {
    size_t off, len;           /* its chunks (ALPH, VP8 / VP8L) in the file */
    int x, y, w, h;            /* its rectangle on the canvas */
    bool blend, dispose;       /* alpha-blend over the canvas; clear after */
    bool alph;                 /* carries an ALPH chunk */
} AnimFrame;

struct WbWebpAnim {
    char path[4096];
    unsigned char *buf;        /* the file; owned unless it is standard input's */
    size_t len;
    bool own;
    AnimFrame *fr;
    double *t;                 /* n + 1 start times, seconds */
    int64_t n;
    WbImage canvas;
    int64_t drawn;             /* the last frame on the canvas; -1 none */
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frame;
};

static uint32_t u24(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static uint32_t u32(const unsigned char *p)
{
    return u24(p) | (uint32_t)p[3] << 24;
}

bool wb_webp_anim_is(const unsigned char *h, size_t n)
{
    return n >= 21 && memcmp(h, "RIFF", 4) == 0 && memcmp(h + 8, "WEBPVP8X", 8) == 0 &&
           (h[20] & 0x02);
}

bool wb_webp_anim_file(const char *path)
{
    unsigned char head[21];
    FILE *f = wb_av_fopen(path);
    bool yes = f && fread(head, 1, sizeof head, f) == sizeof head &&
               wb_webp_anim_is(head, sizeof head);
    if (f)
        fclose(f);
    return yes;
}

static WbStatus bad(WbError *err, const char *path, const char *why)
{
    return wb_error_set(err, WB_E_INPUT, "cannot read image '%s': %s", path, why);
}

static WbStatus read_file(WbWebpAnim *a, WbError *err)
{
    if (strcmp(a->path, "-") == 0) {
        const unsigned char *b;
        int e = wb_av_stdin_bytes(&b, &a->len);
        a->buf = (unsigned char *)b;
        return e ? bad(err, a->path, strerror(e)) : WB_OK;
    }
    FILE *f = fopen(a->path, "rb");
    if (!f)
        return bad(err, a->path, strerror(errno));
    size_t cap = 1 << 16;
    a->own = true;
    for (;;) {
        unsigned char *more = cap <= WB_STDIN_MAX_BYTES ? realloc(a->buf, cap) : NULL;
        if (!more) {
            fclose(f);
            return bad(err, a->path, cap > WB_STDIN_MAX_BYTES ? "larger than 512 MiB"
                                                              : "out of memory");
        }
        a->buf = more;
        a->len += fread(a->buf + a->len, 1, cap - a->len, f);
        if (a->len < cap)
            break;
        cap *= 2;
    }
    bool fail = ferror(f);
    fclose(f);
    return fail ? bad(err, a->path, "read error") : WB_OK;
}

/* The ANMF chunks after VP8X: each {x/2, y/2, w-1, h-1, duration (ms),
 * flags} in 3-byte little-endian fields and a flag byte (bit 1: do not
 * blend, bit 0: dispose to background), then the frame's own chunks. */
static WbStatus list_frames(WbWebpAnim *a, WbError *err)
{
    const unsigned char *b = a->buf;
    if (!wb_webp_anim_is(b, a->len) || a->len < 30)
        return bad(err, a->path, "not an animated WebP");
    int cw = (int)u24(b + 24) + 1, ch = (int)u24(b + 27) + 1;
    if (cw > 32768 || ch > 32768)
        return bad(err, a->path, "picture size out of range");
    size_t end = (size_t)u32(b + 4) + 8 < a->len ? (size_t)u32(b + 4) + 8 : a->len;
    size_t cap = 0;
    double ms = 0;
    for (size_t pos = 12; pos + 8 <= end;) {
        size_t size = u32(b + pos + 4);
        if (size > end - pos - 8)
            return bad(err, a->path, "a chunk runs past the end of the file");
        const unsigned char *d = b + pos + 8;
        if (memcmp(b + pos, "ANMF", 4) == 0) {
            if (size < 16 + 8)
                return bad(err, a->path, "an ANMF chunk too short");
            if ((size_t)a->n == cap) {
                cap = cap ? 2 * cap : 64;
                AnimFrame *fr = realloc(a->fr, cap * sizeof *fr);
                double *t = fr ? realloc(a->t, (cap + 1) * sizeof *t) : NULL;
                if (fr)
                    a->fr = fr;
                if (!t)
                    return bad(err, a->path, "out of memory");
                a->t = t;
            }
            AnimFrame *f = &a->fr[a->n];
            *f = (AnimFrame){.off = pos + 8 + 16, .len = size - 16, .x = 2 * (int)u24(d),
                             .y = 2 * (int)u24(d + 3), .w = (int)u24(d + 6) + 1,
                             .h = (int)u24(d + 9) + 1, .blend = !(d[15] & 2),
                             .dispose = d[15] & 1, .alph = memcmp(d + 16, "ALPH", 4) == 0};
            if (f->x + f->w > cw || f->y + f->h > ch)
                return bad(err, a->path, "a frame lies outside the canvas");
            a->t[a->n++] = ms / 1000.0;
            ms += u24(d + 12);
        }
        pos += 8 + size + (size & 1);
    }
    if (a->n == 0)
        return bad(err, a->path, "an animated WebP without frames");
    if (ms == 0) { /* no durations at all: a tenth of a second each, as players do */
        for (int64_t i = 0; i < a->n; i++)
            a->t[i] = (double)i / 10;
        ms = 100.0 * (double)a->n;
    }
    a->t[a->n] = ms / 1000.0;
    return wb_image_alloc(&a->canvas, cw, ch, err);
}

WbStatus wb_webp_anim_open(WbWebpAnim **out, const char *path, WbError *err)
{
    *out = NULL;
    WbWebpAnim *a = calloc(1, sizeof *a);
    if (!a)
        return wb_error_set(err, WB_E_IO, "out of memory for '%s'", path);
    snprintf(a->path, sizeof a->path, "%s", path);
    a->drawn = -1;
    WbStatus st = read_file(a, err);
    if (!st)
        st = list_frames(a, err);
    const AVCodec *codec = avcodec_find_decoder(AV_CODEC_ID_WEBP);
    if (!st && codec && (a->dec = avcodec_alloc_context3(codec)))
        a->dec->max_pixels = WB_IMAGE_DECODE_MAX_PIXELS;
    if (!st && (!codec || !a->dec ||
                avcodec_open2(a->dec, codec, NULL) < 0 || !(a->pkt = av_packet_alloc()) ||
                !(a->frame = av_frame_alloc())))
        st = bad(err, path, "no WebP decoder");
    if (st) {
        wb_webp_anim_close(a);
        return st;
    }
    *out = a;
    return WB_OK;
}

int64_t wb_webp_anim_frames(const WbWebpAnim *a)
{
    return a->n;
}

double wb_webp_anim_time(const WbWebpAnim *a, int64_t i)
{
    return a->t[i < 0 ? 0 : i > a->n ? a->n : i];
}

/* Frame i as a still WebP of its own (VP8X first when it has an ALPH
 * chunk, so the decoder takes the alpha), decoded to RGBA. */
static WbStatus decode_frame(WbWebpAnim *a, const AnimFrame *f, WbImage *img, WbError *err)
{
    size_t head = 12 + (f->alph ? 18 : 0), size = head + f->len;
    if (size > INT32_MAX - AV_INPUT_BUFFER_PADDING_SIZE)
        return bad(err, a->path, "a frame too large");
    unsigned char *p = av_malloc(size + AV_INPUT_BUFFER_PADDING_SIZE);
    if (!p)
        return bad(err, a->path, "out of memory");
    memset(p + size, 0, AV_INPUT_BUFFER_PADDING_SIZE);
    uint32_t riff = (uint32_t)(size - 8);
    memcpy(p, "RIFF", 4);
    for (int k = 0; k < 4; k++)
        p[4 + k] = (unsigned char)(riff >> 8 * k);
    memcpy(p + 8, "WEBP", 4);
    if (f->alph) {
        static const unsigned char vp8x[8] = {'V', 'P', '8', 'X', 10, 0, 0, 0};
        memcpy(p + 12, vp8x, 8);
        memset(p + 20, 0, 10);
        p[20] = 0x10; /* alpha */
        for (int k = 0; k < 3; k++) {
            p[24 + k] = (unsigned char)((unsigned)(f->w - 1) >> 8 * k);
            p[27 + k] = (unsigned char)((unsigned)(f->h - 1) >> 8 * k);
        }
    }
    memcpy(p + head, a->buf + f->off, f->len);
    int ret = av_packet_from_data(a->pkt, p, (int)size);
    if (ret < 0) {
        av_free(p);
        return bad(err, a->path, "out of memory");
    }
    wb_av_log_reset();
    ret = avcodec_send_packet(a->dec, a->pkt);
    av_packet_unref(a->pkt);
    if (ret >= 0)
        ret = avcodec_receive_frame(a->dec, a->frame);
    if (ret < 0) {
        char why[640];
        return bad(err, a->path, wb_av_describe(ret, why, sizeof why));
    }
    WbStatus st = WB_OK;
    if (a->frame->width != f->w || a->frame->height != f->h)
        st = bad(err, a->path, "a frame's picture is not the size its ANMF chunk states");
    if (!st)
        st = wb_image_from_avframe(a->frame, img, a->path, err);
    av_frame_unref(a->frame);
    return st;
}

/* Straight-alpha "over", exact at the ends (alpha 0 keeps the canvas, 255
 * replaces it) and rounded between. */
static void blend_px(uint8_t *dst, const uint8_t *src)
{
    unsigned sa = src[3], da = dst[3];
    if (sa == 255 || da == 0) {
        memcpy(dst, src, 4);
        return;
    }
    if (sa == 0)
        return;
    unsigned dw = da * (255 - sa), oa = sa * 255 + dw; /* alpha ×255 */
    for (int c = 0; c < 3; c++)
        dst[c] = (uint8_t)((src[c] * sa * 255 + dst[c] * dw + oa / 2) / oa);
    dst[3] = (uint8_t)((oa + 127) / 255);
}

static void clear_rect(WbImage *c, const AnimFrame *f)
{
    for (int y = f->y; y < f->y + f->h; y++)
        memset(wb_image_row(c, y) + 4 * (size_t)f->x, 0, 4 * (size_t)f->w);
}

WbStatus wb_webp_anim_canvas(WbWebpAnim *a, int64_t i, const WbImage **img, WbError *err)
{
    i = i < 0 ? 0 : i >= a->n ? a->n - 1 : i;
    if (i < a->drawn || a->drawn < 0) {
        for (int y = 0; y < a->canvas.h; y++)
            memset(wb_image_row(&a->canvas, y), 0, 4 * (size_t)a->canvas.w);
        a->drawn = -1;
    }
    for (int64_t k = a->drawn + 1; k <= i; k++) {
        const AnimFrame *f = &a->fr[k];
        if (k > 0 && a->fr[k - 1].dispose)
            clear_rect(&a->canvas, &a->fr[k - 1]);
        WbImage px;
        WbStatus st = decode_frame(a, f, &px, err);
        if (st) {
            a->drawn = -1;
            return st;
        }
        for (int y = 0; y < f->h; y++) {
            uint8_t *d = wb_image_row(&a->canvas, f->y + y) + 4 * (size_t)f->x;
            const uint8_t *s = wb_image_row(&px, y);
            if (!f->blend)
                memcpy(d, s, 4 * (size_t)f->w);
            else
                for (int x = 0; x < f->w; x++)
                    blend_px(d + 4 * x, s + 4 * x);
        }
        wb_image_free(&px);
        a->drawn = k;
    }
    *img = &a->canvas;
    return WB_OK;
}

void wb_webp_anim_close(WbWebpAnim *a)
{
    if (!a)
        return;
    if (a->own)
        free(a->buf);
    free(a->fr);
    free(a->t);
    wb_image_free(&a->canvas);
    avcodec_free_context(&a->dec);
    av_packet_free(&a->pkt);
    av_frame_free(&a->frame);
    free(a);
}

/* sink_av.c — video and animation outputs through libavcodec/libavformat.
 *
 * - Kinds (man/wobble.1 lists codecs, pixel formats and defaults): .mp4
 *   x264, .webm VP9, .mov ProRes 4444, .mkv FFV1 (lossless RGB), .gif
 *   (one palette for the run, make_gif_graph), .webp, .apng, and y4m for
 *   "-", .y4m, devices and FIFOs.  A --crf/--preset the encoder ignores
 *   gets a note (wb_avsink_notes).
 * - loop_count is the number of plays (0 = forever); GIF's NETSCAPE block
 *   stores repeats (plays - 1, no block for one play).
 * - Colour: BT.709, limited range, chroma sited left, tagged so; one
 *   matrix everywhere (io/yuv.c, or swscale with the same coefficients).
 *   FFV1 is tagged sRGB.  709 is what players assume for untagged HD.
 * - Damage: only the tiles a frame changed since its buffer was last
 *   written are converted again (Conv); a settled frame converts nothing.
 * - Odd sizes: 4:2:0 encoders that need even sides get the last column
 *   and/or row replicated (nothing cropped); VP9, FFV1, ProRes and y4m
 *   keep odd sizes.
 * - Time base is one frame: frame n has pts n, so count and duration are
 *   exact.  Nothing lost: see io/outpath.h; every av_* result and the
 *   AVIOContext's sticky error are checked after each packet and at close.
 */
#include "io/sink_av.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "io/av_common.h"
#include "io/outpath.h"
#include "io/yuv.h"

typedef struct KindInfo {
    const char *muxer;
    const char *codec;
    enum AVPixelFormat pix_alpha, pix_opaque;
} KindInfo;

static const KindInfo kind_info[] = {
    [WB_SINK_MP4] = {"mp4", "libx264", AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV420P},
    [WB_SINK_WEBM] = {"webm", "libvpx-vp9", AV_PIX_FMT_YUVA420P, AV_PIX_FMT_YUV420P},
    [WB_SINK_MOV] = {"mov", "prores_ks", AV_PIX_FMT_YUVA444P10LE, AV_PIX_FMT_YUV444P10LE},
    [WB_SINK_MKV] = {"matroska", "ffv1", AV_PIX_FMT_BGRA, AV_PIX_FMT_BGR0},
    [WB_SINK_GIF] = {"gif", "gif", AV_PIX_FMT_PAL8, AV_PIX_FMT_PAL8},
    [WB_SINK_WEBP] = {"webp", "libwebp_anim", AV_PIX_FMT_BGRA, AV_PIX_FMT_BGRA},
    [WB_SINK_PNGSEQ] = {NULL, NULL, AV_PIX_FMT_NONE, AV_PIX_FMT_NONE},
    [WB_SINK_Y4M] = {"yuv4mpegpipe", "wrapped_avframe", AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV420P},
    [WB_SINK_APNG] = {"apng", "apng", AV_PIX_FMT_RGBA, AV_PIX_FMT_RGB24},
    [WB_SINK_PNG] = {NULL, NULL, AV_PIX_FMT_NONE, AV_PIX_FMT_NONE},
};

/* y4m carries only a few layouts; these are the ones worth offering. */
static const enum AVPixelFormat y4m_pix[] = {AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P,
                                             AV_PIX_FMT_YUV444P, AV_PIX_FMT_NONE};
static const enum AVPixelFormat gif_pix[] = {AV_PIX_FMT_PAL8, AV_PIX_FMT_NONE};

/* x264's preset names, fastest first; VP9 gets the deadline/cpu-used pair. */
static const struct {
    const char *name;
    const char *vp9_deadline;
    int vp9_cpu_used;
} presets[] = {
    {"ultrafast", "realtime", 8}, {"superfast", "realtime", 7}, {"veryfast", "realtime", 6},
    {"faster", "good", 5},        {"fast", "good", 5},          {"medium", "good", 4},
    {"slow", "good", 3},          {"slower", "good", 2},        {"veryslow", "good", 1},
    {"placebo", "good", 0},
};
enum { N_PRESETS = sizeof presets / sizeof presets[0], PRESET_MEDIUM = 5 };

/* Everything open needs, worked out (and validated) from the options. */
typedef struct AvPlan {
    const AVOutputFormat *ofmt;
    const AVCodec *codec;
    enum AVPixelFormat pix;
    int enc_w, enc_h;  /* encoded size (padded to even where needed) */
    int preset;        /* index into presets[] */
    int crf;           /* resolved for x264/VP9, quality for WebP, else -1 */
} AvPlan;

static void list_pix(const enum AVPixelFormat *fmts, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; fmts && fmts[i] != AV_PIX_FMT_NONE && used + 1 < n; i++) {
        int k = snprintf(buf + used, n - used, "%s%s", used ? " " : "",
                         av_get_pix_fmt_name(fmts[i]));
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

static bool pix_in(const enum AVPixelFormat *fmts, enum AVPixelFormat p)
{
    for (int i = 0; fmts && fmts[i] != AV_PIX_FMT_NONE; i++)
        if (fmts[i] == p)
            return true;
    return false;
}

static bool is_yuv(enum AVPixelFormat p)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(p);
    return d && !(d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL)) && d->nb_components >= 3;
}

/* The extension the user typed (".mkv"), for messages; the muxer's name
 * when the path has none (a device). */
static const char *ext_of(const char *path, const char *muxer)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot : muxer;
}

static WbStatus plan_codec(const WbSinkOptions *opt, WbSinkKind kind, AvPlan *p, WbError *err)
{
    const KindInfo *ki = &kind_info[kind];
    p->ofmt = av_guess_format(ki->muxer, NULL, NULL);
    if (!p->ofmt)
        return wb_error_set(err, WB_E_INPUT, "this FFmpeg has no '%s' muxer for '%s'", ki->muxer,
                            opt->path);
    const char *name = opt->codec ? opt->codec : ki->codec;
    if ((kind == WB_SINK_GIF || kind == WB_SINK_Y4M) && strcmp(name, ki->codec) != 0)
        return wb_error_set(err, WB_E_INPUT, "codec '%s' cannot write '%s': it takes only '%s'",
                            name, opt->path, ki->codec);
    p->codec = avcodec_find_encoder_by_name(name);
    if (!p->codec || p->codec->type != AVMEDIA_TYPE_VIDEO)
        return wb_error_set(err, WB_E_INPUT, "unknown video encoder '%s' (see `ffmpeg -encoders`)",
                            name);
    if (kind != WB_SINK_GIF && kind != WB_SINK_Y4M &&
        avformat_query_codec(p->ofmt, p->codec->id, FF_COMPLIANCE_NORMAL) != 1)
        return wb_error_set(err, WB_E_INPUT, "encoder '%s' cannot be stored in a %s file ('%s')",
                            name, ext_of(opt->path, ki->muxer), opt->path);
    return WB_OK;
}

static WbStatus plan_pix(const WbSinkOptions *opt, WbSinkKind kind, AvPlan *p, WbError *err)
{
    const KindInfo *ki = &kind_info[kind];
    /* The y4m stream's "encoder" is FFmpeg plumbing (wrapped_avframe): name
     * the format the user chose instead. */
    const char *who = kind == WB_SINK_Y4M ? "y4m" : p->codec->name;
    const enum AVPixelFormat *ok = kind == WB_SINK_Y4M   ? y4m_pix
                                   : kind == WB_SINK_GIF ? gif_pix
                                                         : p->codec->pix_fmts;
    char names[1024];
    if (opt->pix_fmt) {
        p->pix = av_get_pix_fmt(opt->pix_fmt);
        if (p->pix == AV_PIX_FMT_NONE || !pix_in(ok, p->pix) ||
            (kind != WB_SINK_GIF && !sws_isSupportedOutput(p->pix))) {
            list_pix(ok, names, sizeof names);
            return wb_error_set(err, WB_E_INPUT,
                                "pixel format '%s' is not supported by '%s'; supported: %s",
                                opt->pix_fmt, who, names);
        }
    } else {
        p->pix = opt->alpha ? ki->pix_alpha : ki->pix_opaque;
        if (!pix_in(ok, p->pix)) {
            /* An overridden encoder without the kind's usual layout: take its
             * first one the converter can produce. */
            p->pix = AV_PIX_FMT_NONE;
            for (int i = 0; ok && ok[i] != AV_PIX_FMT_NONE; i++)
                if (sws_isSupportedOutput(ok[i])) {
                    p->pix = ok[i];
                    break;
                }
            if (p->pix == AV_PIX_FMT_NONE)
                return wb_error_set(err, WB_E_INPUT,
                                    "encoder '%s' takes no pixel format wobble can convert to",
                                    who);
        }
    }
    /* 4:2:0/4:2:2 for encoders that insist on whole chroma samples: pad. */
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(p->pix);
    enum AVCodecID id = p->codec->id;
    bool odd_ok = id == AV_CODEC_ID_VP9 || id == AV_CODEC_ID_VP8 || id == AV_CODEC_ID_FFV1 ||
                  id == AV_CODEC_ID_AV1 || id == AV_CODEC_ID_WRAPPED_AVFRAME ||
                  !is_yuv(p->pix);
    int mw = odd_ok ? 1 : 1 << d->log2_chroma_w, mh = odd_ok ? 1 : 1 << d->log2_chroma_h;
    p->enc_w = (opt->width + mw - 1) / mw * mw;
    p->enc_h = (opt->height + mh - 1) / mh * mh;
    return WB_OK;
}

static WbStatus plan_knobs(const WbSinkOptions *opt, AvPlan *p, WbError *err)
{
    p->preset = PRESET_MEDIUM;
    if (opt->preset) {
        p->preset = -1;
        for (int i = 0; i < N_PRESETS; i++)
            if (strcmp(opt->preset, presets[i].name) == 0)
                p->preset = i;
        if (p->preset < 0)
            return wb_error_set(err, WB_E_INPUT,
                                "unknown preset '%s'; presets: ultrafast superfast veryfast "
                                "faster fast medium slow slower veryslow placebo",
                                opt->preset);
    }
    int lo = 0, hi = 0, def = -1;
    switch (p->codec->id) {
    case AV_CODEC_ID_H264: hi = 51; def = 18; break;
    case AV_CODEC_ID_VP9: hi = 63; def = 31; break;
    case AV_CODEC_ID_WEBP: hi = 100; def = 25; break; /* quality = 100 - crf */
    default: break;
    }
    if (opt->crf < -1 || (def >= 0 && opt->crf > hi))
        return wb_error_set(err, WB_E_INPUT, "crf %d is out of range for '%s' (%d..%d)", opt->crf,
                            p->codec->name, lo, def >= 0 ? hi : 63);
    p->crf = def < 0 ? -1 : opt->crf >= 0 ? opt->crf : def;
    return WB_OK;
}

/* Frame sizes the encoders refuse only when they open or take the first
 * frame (after the whole simulation ran, as a write error): FFmpeg takes no
 * picture with (w+128)*(h+128) >= INT_MAX/8 (av_image_check_size, about
 * 16255x16255), libwebp no side over 16383.  They are a bad --size or
 * output.width/height, so they are refused here, before anything runs. */
static WbStatus plan_size(const WbSinkOptions *opt, const AvPlan *p, WbError *err)
{
    const char *who = p->codec->id == AV_CODEC_ID_WRAPPED_AVFRAME ? "y4m" : p->codec->name;
    if ((int64_t)(p->enc_w + 128) * (p->enc_h + 128) >= INT_MAX / 8)
        return wb_error_set(err, WB_E_INPUT,
                            "%dx%d is too large a frame for '%s' (FFmpeg takes at most about "
                            "16255x16255 pixels, (w+128)*(h+128) < 2^28); a PNG sequence "
                            "takes any size",
                            opt->width, opt->height, who);
    if (p->codec->id == AV_CODEC_ID_WEBP && (p->enc_w > 16383 || p->enc_h > 16383))
        return wb_error_set(err, WB_E_INPUT,
                            "%dx%d is too large a frame for '%s' (WebP takes at most "
                            "16383x16383)",
                            opt->width, opt->height, who);
    return WB_OK;
}

static WbStatus make_plan(const WbSinkOptions *opt, WbSinkKind kind, AvPlan *p, WbError *err)
{
    wb_av_init();
    memset(p, 0, sizeof *p);
    WbStatus st = plan_codec(opt, kind, p, err);
    if (!st)
        st = plan_pix(opt, kind, p, err);
    if (!st)
        st = plan_size(opt, p, err);
    if (!st)
        st = plan_knobs(opt, p, err);
    return st;
}

WbStatus wb_avsink_preflight(const WbSinkOptions *opt, WbSinkKind kind, WbError *err)
{
    AvPlan p;
    return make_plan(opt, kind, &p, err);
}

/* Of the first `n` frames at fps, how many a sink that merges a frame less
 * than min_ticks (of 1/tick_hz s) after the last one kept keeps; the same
 * rounding as wb_avsink_write. */
static int frames_kept(double fps, int n, int tick_hz, int min_ticks, bool nearest)
{
    int kept = 0;
    int64_t last = -1;
    for (int i = 0; i < n; i++) {
        double t = i * (double)tick_hz / fps;
        int64_t k = (int64_t)(nearest ? floor(t + 0.5) : floor(t));
        if (last < 0 || k - last >= min_ticks) {
            kept++;
            last = k;
        }
    }
    return kept;
}

void wb_avsink_notes(const WbSinkOptions *opt, WbSinkKind kind, WbSinkNotes *notes)
{
    AvPlan p;
    if (make_plan(opt, kind, &p, NULL))
        return;
    enum AVCodecID id = p.codec->id;
    const char *who = kind == WB_SINK_Y4M ? "y4m" : p.codec->name;
    if (opt->crf_given && id != AV_CODEC_ID_H264 && id != AV_CODEC_ID_VP9 && id != AV_CODEC_ID_WEBP)
        wb_sink_note(notes, "--crf is ignored by '%s' (it applies to libx264, libvpx-vp9 and "
                     "libwebp_anim: .mp4, .webm, .webp)", who);
    if (opt->preset_given && id != AV_CODEC_ID_H264 && id != AV_CODEC_ID_VP9)
        wb_sink_note(notes, "--preset is ignored by '%s' (it applies to libx264 and libvpx-vp9: "
                     ".mp4, .webm)", who);
    /* GIF keeps alpha as on/off (documented), the others all of it or none. */
    const AVPixFmtDescriptor *pd = av_pix_fmt_desc_get(p.pix);
    if (opt->alpha && kind != WB_SINK_GIF && pd && !(pd->flags & AV_PIX_FMT_FLAG_ALPHA))
        wb_sink_note(notes, "the scene is transparent, but '%s' (%s) has no alpha channel: "
                     "the alpha is dropped; .webm, .mov, .mkv, .webp, .apng and PNG keep it", who,
                     pd->name);
    double fps = (double)opt->fps_num / opt->fps_den;
    int n = (int)ceil(fps);
    if (kind == WB_SINK_GIF && fps > 50)
        wb_sink_note(notes, "GIF stores frame delays in whole centiseconds, at least 2 (50 fps): at "
                     "%g fps a frame less than 20 ms after the last one kept is dropped, so %d of "
                     "every %d frames are kept and the timing stays right; use --fps 50 or less "
                     "(50, 33.3, 25) to keep every frame, or .webp/.apng",
                     fps, frames_kept(fps, n, 100, 2, true), n);
    if (kind == WB_SINK_WEBP && fps > 1000.0 / 11)
        wb_sink_note(notes, "players show a WebP frame of 10 ms or less as 100 ms: at %g fps a "
                     "frame less than 11 ms after the last one kept is dropped, so %d of every "
                     "%d frames are kept; use --fps 90 or less to keep every frame",
                     fps, frames_kept(fps, n, 1000, 11, false), n);
}

/* ---- the open sink --------------------------------------------------- */

/* Encoder inputs kept for reuse.  A frame-threaded encoder with lookahead
 * (x264) holds a dozen or more pictures; a fresh 3 MB buffer per 1080p
 * frame costs the kernel a page fault and a zeroing per 4 KiB. */
#define SPARE_FRAMES 64

/* The encoder input last converted from each of the last CONV_SLOTS source
 * buffers.  The frame loop draws into two images in turn and says what
 * changed in each against its own last frame (wb_sink_write's damage):
 * converting only that over the same buffer's last conversion needs that
 * conversion kept, one per source buffer.  (The encoders copy what they
 * are sent, so the input is writable again by the next frame; one that
 * is still held gets a spare buffer and a whole conversion.) */
#define CONV_SLOTS 2
typedef struct Conv {
    const uint8_t *px;        /* the source buffer (pixels and stride); NULL: none yet */
    ptrdiff_t stride;
    AVFrame *frame;           /* its encoder input, owned */
    bool valid;               /* frame holds px's conversion as last written */
    uint64_t used;            /* conv_clock when last written */
} Conv;

struct WbAvSink {
    WbSinkKind kind;
    int w, h;
    AVFormatContext *fmt;
    AVCodecContext *enc;
    AVStream *st;
    AVFrame *frame;           /* the encoder input being filled: one of conv[].frame */
    Conv conv[CONV_SLOTS];
    uint64_t conv_clock;
    AVFrame *spare[SPARE_FRAMES]; /* earlier inputs, reused once the encoder lets go */
    int n_spare;
    AVFrame *filt;            /* GIF: frames out of the filter graph */
    AVPacket *pkt;
    struct SwsContext *sws;
    WbImage pad;              /* odd sizes: the frame padded to even */
    AVFilterGraph *graph;     /* GIF only */
    AVFilterContext *src, *sink;
    int64_t frames;
    /* GIF and WebP: each frame carries its own delay; see wb_avsink_write. */
    AVRational tick;          /* the unit of those delays (GIF 1/100 s, WebP 1/1000 s) */
    int min_ticks;            /* shortest delay players honour; 0 = no limit */
    int64_t last_tick;        /* start of the last frame sent, in ticks; -1 none */
    bool direct;              /* writing straight to a special file / stdout */
    bool failed;              /* an earlier write failed: no trailer */
    bool header;              /* the container header was written ... */
    bool trailer;             /* ... and av_write_trailer called since */
    char path[4200];          /* as given, for messages and the rename */
    char tmp[4200];           /* the file being written (== path when direct) */
};

static const char *shown_path(const WbAvSink *s)
{
    return strcmp(s->path, "-") == 0 ? "standard output" : s->path;
}

static WbStatus av_fail(WbAvSink *s, WbError *err, int ret, const char *what)
{
    char why[700];
    wb_av_describe(ret, why, sizeof why);
    s->failed = true;
    return wb_error_set(err, WB_E_IO, "cannot write '%s': %s: %s", shown_path(s), what, why);
}

static WbStatus io_check(WbAvSink *s, WbError *err)
{
    if (s->fmt && s->fmt->pb && s->fmt->pb->error < 0)
        return av_fail(s, err, s->fmt->pb->error, "write failed");
    return WB_OK;
}

/* Colour tags and the swscale matrix, per the design note. */
static void tag_colour(AVCodecContext *enc)
{
    if (is_yuv(enc->pix_fmt)) {
        enc->color_primaries = AVCOL_PRI_BT709;
        enc->color_trc = AVCOL_TRC_BT709;
        enc->colorspace = AVCOL_SPC_BT709;
        enc->color_range = AVCOL_RANGE_MPEG;
        const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(enc->pix_fmt);
        if (d->log2_chroma_w == 1 && d->log2_chroma_h == 1)
            enc->chroma_sample_location = AVCHROMA_LOC_LEFT;
    } else if (enc->pix_fmt != AV_PIX_FMT_PAL8) {
        enc->color_primaries = AVCOL_PRI_BT709;
        enc->color_trc = AVCOL_TRC_IEC61966_2_1;
        enc->colorspace = AVCOL_SPC_RGB;
        enc->color_range = AVCOL_RANGE_JPEG;
    }
}

static WbStatus make_scaler(WbAvSink *s, WbError *err)
{
    enum AVPixelFormat pix = s->enc->pix_fmt;
    /* Same-size conversion: bilinear only shapes the chroma subsampling;
     * SWS_ACCURATE_RND is left off (it costs a lot and changes little). */
    int w = s->enc->width, h = s->enc->height;
    if ((w != s->w || h != s->h) && wb_image_alloc(&s->pad, w, h, err) != WB_OK)
        return WB_E_IO;
    if (pix == AV_PIX_FMT_YUV420P || pix == AV_PIX_FMT_YUVA420P)
        return WB_OK; /* io/yuv.c converts these */
    s->sws = sws_getContext(w, h, AV_PIX_FMT_RGBA, w, h, pix, SWS_BILINEAR, NULL, NULL, NULL);
    if (!s->sws)
        return av_fail(s, err, AVERROR(EINVAL), "no RGBA converter for this pixel format");
    if (is_yuv(pix)) {
        int *inv, *tab, sr, dr, b, c, sat;
        if (sws_getColorspaceDetails(s->sws, &inv, &sr, &tab, &dr, &b, &c, &sat) >= 0)
            sws_setColorspaceDetails(s->sws, sws_getCoefficients(SWS_CS_ITU709), 1,
                                     sws_getCoefficients(SWS_CS_ITU709), 0, b, c, sat);
    }
    return WB_OK;
}

/* GIF: buffer(RGBA) → split → palettegen / paletteuse → buffersink(pal8).
 * One palette for the whole run: palettegen (stats_mode=full: colours of
 * every frame count) only emits it at end of stream, so the graph holds
 * every frame until close; GIF is meant for short, small clips.  paletteuse
 * dithers with sierra2_4a.  Transparency: palettegen reserves one entry and
 * paletteuse maps alpha < 128 to it.  Delays are whole centiseconds of at
 * least 2 (players stretch shorter ones to 10 cs), so above 50 fps frames
 * closer than that to the last one sent are merged; WebP likewise keeps
 * every frame above 10 ms (above ~90 fps). */
static WbStatus make_gif_graph(WbAvSink *s, const WbSinkOptions *opt, WbError *err)
{
    char args[256], desc[512];
    int ret;
    s->graph = avfilter_graph_alloc();
    if (!s->graph)
        return av_fail(s, err, AVERROR(ENOMEM), "filter graph");
    snprintf(args, sizeof args, "video_size=%dx%d:pix_fmt=%d:time_base=%d/%d:pixel_aspect=1/1",
             s->w, s->h, (int)AV_PIX_FMT_RGBA, opt->fps_den, opt->fps_num);
    ret = avfilter_graph_create_filter(&s->src, avfilter_get_by_name("buffer"), "in", args, NULL,
                                       s->graph);
    if (ret >= 0)
        ret = avfilter_graph_create_filter(&s->sink, avfilter_get_by_name("buffersink"), "out",
                                           NULL, NULL, s->graph);
    if (ret < 0)
        return av_fail(s, err, ret, "filter graph");
    snprintf(desc, sizeof desc,
             "split[a][b];[a]palettegen=stats_mode=full:reserve_transparent=%d[p];"
             "[b][p]paletteuse=dither=sierra2_4a:alpha_threshold=128",
             opt->alpha ? 1 : 0);
    AVFilterInOut *outs = avfilter_inout_alloc(), *ins = avfilter_inout_alloc();
    if (!outs || !ins) {
        avfilter_inout_free(&outs);
        avfilter_inout_free(&ins);
        return av_fail(s, err, AVERROR(ENOMEM), "filter graph");
    }
    outs->name = av_strdup("in");
    outs->filter_ctx = s->src;
    ins->name = av_strdup("out");
    ins->filter_ctx = s->sink;
    ret = avfilter_graph_parse_ptr(s->graph, desc, &ins, &outs, NULL);
    avfilter_inout_free(&outs);
    avfilter_inout_free(&ins);
    if (ret >= 0)
        ret = avfilter_graph_config(s->graph, NULL);
    if (ret < 0)
        return av_fail(s, err, ret, "GIF palette filter graph");
    s->filt = av_frame_alloc();
    if (!s->filt)
        return av_fail(s, err, AVERROR(ENOMEM), "frame");
    return WB_OK;
}

/* Encoder-private options for the plan. */
static void codec_options(const AvPlan *p, AVDictionary **o)
{
    char num[32];
    switch (p->codec->id) {
    case AV_CODEC_ID_H264:
        av_dict_set(o, "preset", presets[p->preset].name, 0);
        snprintf(num, sizeof num, "%d", p->crf);
        av_dict_set(o, "crf", num, 0);
        break;
    case AV_CODEC_ID_VP9:
        /* Constant quality (crf with b=0), good/realtime deadline, row-based
         * multithreading and tile columns so it is not glacial. */
        snprintf(num, sizeof num, "%d", p->crf);
        av_dict_set(o, "crf", num, 0);
        av_dict_set(o, "b", "0", 0);
        av_dict_set(o, "deadline", presets[p->preset].vp9_deadline, 0);
        snprintf(num, sizeof num, "%d", presets[p->preset].vp9_cpu_used);
        av_dict_set(o, "cpu-used", num, 0);
        av_dict_set(o, "row-mt", "1", 0);
        av_dict_set(o, "tile-columns", "2", 0);
        break;
    case AV_CODEC_ID_PRORES:
        /* 4444 for 4:4:4 (and alpha); a 4:2:2 --pix-fmt gets 422 HQ, not a
         * "4444" stream with 4:2:2 chroma that players may refuse. */
        av_dict_set(o, "profile", av_pix_fmt_desc_get(p->pix)->log2_chroma_w ? "hq" : "4444", 0);
        break;
    case AV_CODEC_ID_FFV1:
        /* Version 3 with per-slice CRCs: slice threads and error detection. */
        av_dict_set(o, "level", "3", 0);
        av_dict_set(o, "slicecrc", "1", 0);
        break;
    case AV_CODEC_ID_WEBP:
        snprintf(num, sizeof num, "%d", 100 - p->crf);
        av_dict_set(o, "quality", num, 0);
        av_dict_set(o, "lossless", "0", 0);
        break;
    case AV_CODEC_ID_HEVC:
        /* x265 logs its banner and settings to stderr itself, past
         * FFmpeg's log level: keep it to errors like every other encoder. */
        if (!strcmp(p->codec->name, "libx265"))
            av_dict_set(o, "x265-params", "log-level=error", 0);
        break;
    default:
        break;
    }
}

static WbStatus open_encoder(WbAvSink *s, const WbSinkOptions *opt, const AvPlan *p,
                             WbError *err)
{
    s->enc = avcodec_alloc_context3(p->codec);
    if (!s->enc)
        return av_fail(s, err, AVERROR(ENOMEM), "encoder");
    AVCodecContext *enc = s->enc;
    enc->width = p->enc_w;
    enc->height = p->enc_h;
    enc->pix_fmt = p->pix;
    enc->sample_aspect_ratio = (AVRational){1, 1};
    enc->time_base = (AVRational){opt->fps_den, opt->fps_num};
    if (s->sink)
        enc->time_base = av_buffersink_get_time_base(s->sink);
    enc->framerate = (AVRational){opt->fps_num, opt->fps_den};
    enc->thread_count = opt->threads;
    if (p->codec->id == AV_CODEC_ID_FFV1)
        enc->gop_size = 1;
    tag_colour(enc);
    if (p->ofmt->flags & AVFMT_GLOBALHEADER)
        enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary *o = NULL;
    codec_options(p, &o);
    int ret = avcodec_open2(enc, p->codec, &o);
    av_dict_free(&o);
    if (ret < 0)
        return av_fail(s, err, ret, "cannot open the encoder");
    return WB_OK;
}

static WbStatus open_output(WbAvSink *s, const WbSinkOptions *opt, const AvPlan *p,
                            WbError *err)
{
    char url[4300];
    int ret;
    if (strcmp(opt->path, "-") == 0) {
        s->direct = true;
        snprintf(url, sizeof url, "pipe:1");
    } else {
        s->direct = wb_outpath_is_special(opt->path);
        if (s->direct) {
            snprintf(s->tmp, sizeof s->tmp, "%s", opt->path);
        } else {
            WbStatus st = wb_outpath_temp(opt->path, s->tmp, sizeof s->tmp, err);
            if (st)
                return st;
        }
        snprintf(url, sizeof url, "file:%s", s->tmp);
    }
    ret = avformat_alloc_output_context2(&s->fmt, p->ofmt, NULL, url);
    if (ret < 0)
        return av_fail(s, err, ret, "cannot set up the container");
    /* Same scene, same bytes: no random segment UID (Matroska/WebM) and
     * no muxer version string in the file. */
    s->fmt->flags |= AVFMT_FLAG_BITEXACT;
    s->st = avformat_new_stream(s->fmt, NULL);
    if (!s->st)
        return av_fail(s, err, AVERROR(ENOMEM), "stream");
    if ((ret = avcodec_parameters_from_context(s->st->codecpar, s->enc)) < 0)
        return av_fail(s, err, ret, "stream parameters");
    s->st->time_base = s->enc->time_base;
    s->st->sample_aspect_ratio = s->enc->sample_aspect_ratio;
    s->st->avg_frame_rate = s->enc->framerate;
    s->st->r_frame_rate = s->enc->framerate;
    if (!(p->ofmt->flags & AVFMT_NOFILE)) {
        ret = avio_open(&s->fmt->pb, url, AVIO_FLAG_WRITE);
        if (ret < 0) {
            s->fmt->pb = NULL;
            char why[700];
            wb_av_describe(ret, why, sizeof why);
            return wb_error_set(err, WB_E_IO, "cannot write '%s': %s", shown_path(s), why);
        }
    }
    AVDictionary *mo = NULL;
    if (s->kind == WB_SINK_MP4 && !s->direct)
        av_dict_set(&mo, "movflags", "+faststart", 0);
    if (s->kind == WB_SINK_MOV)
        av_dict_set(&mo, "movflags", "+write_colr", 0);
    char plays[16];
    int n = opt->loop_count;
    snprintf(plays, sizeof plays, "%d", s->kind == WB_SINK_GIF ? (n == 0 ? 0 : n == 1 ? -1 : n - 1) : n);
    if (s->kind == WB_SINK_WEBP || s->kind == WB_SINK_GIF)
        av_dict_set(&mo, "loop", plays, 0);
    if (s->kind == WB_SINK_APNG)
        av_dict_set(&mo, "plays", plays, 0);
    ret = avformat_write_header(s->fmt, &mo);
    av_dict_free(&mo);
    if (ret < 0)
        return av_fail(s, err, ret, "cannot write the header");
    s->header = true;
    return io_check(s, err);
}

/* (Re)allocate the encoder input frame.  When the encoder still holds a
 * reference to the previous buffer (y4m's wrapped_avframe does), a new one
 * is taken instead of copying pixels that are about to be overwritten. */
static int new_frame_buffer(WbAvSink *s)
{
    AVFrame *f = s->frame;
    av_frame_unref(f);
    f->format = s->enc->pix_fmt;
    f->width = s->enc->width;
    f->height = s->enc->height;
    /* Some encoders (ProRes) take the colour tags from the frame. */
    f->color_primaries = s->enc->color_primaries;
    f->color_trc = s->enc->color_trc;
    f->colorspace = s->enc->colorspace;
    f->color_range = s->enc->color_range;
    f->chroma_location = s->enc->chroma_sample_location;
    f->sample_aspect_ratio = s->enc->sample_aspect_ratio;
    return av_frame_get_buffer(f, 0);
}

/* The next encoder input when the encoder still holds the current one: a
 * spare it has let go of, else a new one (the current one becoming a
 * spare while there is room).  Every pixel is written before it is sent,
 * so which buffer it is changes no byte. */
static int next_frame(WbAvSink *s)
{
    for (int i = 0; i < s->n_spare; i++)
        if (av_frame_is_writable(s->spare[i])) {
            AVFrame *f = s->spare[i];
            s->spare[i] = s->frame;
            s->frame = f;
            return 0;
        }
    if (s->n_spare < SPARE_FRAMES) {
        AVFrame *f = av_frame_alloc();
        if (!f)
            return AVERROR(ENOMEM);
        s->spare[s->n_spare++] = s->frame;
        s->frame = f;
    }
    return new_frame_buffer(s);
}

static void free_sink(WbAvSink *s)
{
    if (s->fmt) {
        /* Some muxers free their state only in the trailer (GIF keeps its
         * last packet until then): write it even into a file that failed
         * or is dropped, where its result no longer matters. */
        if (s->header && !s->trailer && s->fmt->pb)
            (void)av_write_trailer(s->fmt);
        if (s->fmt->pb && !(s->fmt->oformat->flags & AVFMT_NOFILE))
            avio_closep(&s->fmt->pb);
        avformat_free_context(s->fmt);
    }
    avcodec_free_context(&s->enc);
    for (int i = 0; i < CONV_SLOTS; i++)
        av_frame_free(&s->conv[i].frame);
    for (int i = 0; i < s->n_spare; i++)
        av_frame_free(&s->spare[i]);
    av_frame_free(&s->filt);
    av_packet_free(&s->pkt);
    sws_freeContext(s->sws);
    wb_image_free(&s->pad);
    avfilter_graph_free(&s->graph);
    free(s);
}

WbStatus wb_avsink_open(WbAvSink **out, const WbSinkOptions *opt, WbSinkKind kind, WbError *err)
{
    *out = NULL;
    AvPlan p;
    WbStatus st = make_plan(opt, kind, &p, err);
    if (st)
        return st;
    WbAvSink *s = calloc(1, sizeof *s);
    if (!s)
        return wb_error_set(err, WB_E_IO, "out of memory opening '%s'", opt->path);
    s->kind = kind;
    s->w = opt->width;
    s->h = opt->height;
    s->last_tick = -1;
    /* Browsers and FFmpeg show a GIF delay under 2 cs, and browsers a WebP
     * frame of 10 ms or less, as 100 ms. */
    if (kind == WB_SINK_GIF) {
        s->tick = (AVRational){1, 100};
        s->min_ticks = 2;
    } else if (kind == WB_SINK_WEBP) {
        s->tick = (AVRational){1, 1000};
        s->min_ticks = 11;
    }
    snprintf(s->path, sizeof s->path, "%s", opt->path);
    wb_av_log_reset();
    s->pkt = av_packet_alloc();
    s->frame = s->conv[0].frame = av_frame_alloc();
    if (!s->pkt || !s->frame)
        st = av_fail(s, err, AVERROR(ENOMEM), "frame");
    if (!st && kind == WB_SINK_GIF)
        st = make_gif_graph(s, opt, err);
    if (!st)
        st = open_encoder(s, opt, &p, err);
    if (!st && kind != WB_SINK_GIF) {
        int ret = new_frame_buffer(s);
        st = ret < 0 ? av_fail(s, err, ret, "frame") : make_scaler(s, err);
    }
    if (!st)
        st = open_output(s, opt, &p, err);
    if (st) {
        bool made_file = s->fmt && s->fmt->pb && !s->direct;
        char tmp[sizeof s->tmp];
        memcpy(tmp, s->tmp, sizeof tmp);
        free_sink(s);
        if (made_file)
            unlink(tmp);
        return st;
    }
    *out = s;
    return WB_OK;
}

/* Send one frame (NULL = flush) and write every packet that comes out. */
static WbStatus encode(WbAvSink *s, AVFrame *f, WbError *err)
{
    int ret = avcodec_send_frame(s->enc, f);
    if (ret < 0)
        return av_fail(s, err, ret, "encoder refused a frame");
    for (;;) {
        ret = avcodec_receive_packet(s->enc, s->pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return WB_OK;
        if (ret < 0)
            return av_fail(s, err, ret, "encoding failed");
        /* Each picture lasts one frame (one tick of the encoder time base);
         * encoders with delay leave the duration unset. */
        if (s->pkt->duration <= 0)
            s->pkt->duration = 1;
        av_packet_rescale_ts(s->pkt, s->enc->time_base, s->st->time_base);
        s->pkt->stream_index = s->st->index;
        ret = av_interleaved_write_frame(s->fmt, s->pkt);
        if (ret < 0)
            return av_fail(s, err, ret, "write failed");
        WbStatus st = io_check(s, err);
        if (st)
            return st;
    }
}

/* Pull whatever the GIF graph has ready into the encoder. */
static WbStatus drain_graph(WbAvSink *s, WbError *err)
{
    for (;;) {
        int ret = av_buffersink_get_frame(s->sink, s->filt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return WB_OK;
        if (ret < 0)
            return av_fail(s, err, ret, "GIF palette filter");
        WbStatus st = encode(s, s->filt, err);
        av_frame_unref(s->filt);
        if (st)
            return st;
    }
}

/* The picture to convert: the caller's frame itself, or, for padded sizes,
 * a copy whose extra column/row repeat the last ones (padding before the
 * conversion keeps the chroma of the edge pixels exactly as if the picture
 * simply continued). */
static const WbImage *padded_source(WbAvSink *s, const WbImage *img)
{
    if (!s->pad.px)
        return img;
    for (int y = 0; y < s->pad.h; y++) {
        const uint8_t *src = wb_image_row(img, y < s->h ? y : s->h - 1);
        uint8_t *dst = wb_image_row(&s->pad, y);
        memcpy(dst, src, (size_t)s->w * 4);
        for (int x = s->w; x < s->pad.w; x++)
            memcpy(dst + 4 * x, src + 4 * (s->w - 1), 4);
    }
    return &s->pad;
}

/* The conversion slot of source buffer img: its own, else the least
 * recently written one, taken over (holding nothing of img yet). */
static Conv *conv_slot(WbAvSink *s, const WbImage *img)
{
    Conv *c = NULL;
    for (int i = 0; i < CONV_SLOTS && !c; i++)
        if (s->conv[i].px == img->px && s->conv[i].stride == img->stride)
            c = &s->conv[i];
    if (!c) {
        c = &s->conv[0];
        for (int i = 1; i < CONV_SLOTS; i++)
            if (s->conv[i].used < c->used)
                c = &s->conv[i];
        c->px = img->px;
        c->stride = img->stride;
        c->valid = false;
    }
    c->used = ++s->conv_clock;
    return c;
}

WbStatus wb_avsink_write(WbAvSink *s, const WbImage *img, const WbDamage *damage, WbError *err)
{
    if (s->failed)
        return wb_error_set(err, WB_E_IO, "cannot write '%s': an earlier write failed",
                            shown_path(s));
    wb_av_log_reset();
    int ret;
    if (s->min_ticks) {
        /* A GIF delay is whole centiseconds (the muxer rounds each frame's
         * start) and a WebP one whole milliseconds (libwebp_anim floors
         * it), and players stretch the shortest to 100 ms: above 50 fps
         * every third GIF frame or so got 1 cs and a 60 fps clip played at
         * a third of its speed.  A frame that would start less than
         * min_ticks after the last one sent is merged into it (not sent);
         * the next one sent is then shown on time. */
        int64_t t = av_rescale_q_rnd(s->frames, s->enc->time_base, s->tick,
                                     (s->kind == WB_SINK_GIF ? AV_ROUND_NEAR_INF : AV_ROUND_DOWN) |
                                         AV_ROUND_PASS_MINMAX);
        if (s->last_tick >= 0 && t - s->last_tick < s->min_ticks) {
            /* Not converted: its buffer's conversion no longer matches. */
            conv_slot(s, img)->valid = false;
            s->frames++;
            return WB_OK;
        }
        s->last_tick = t;
    }
    if (s->kind == WB_SINK_GIF) {
        /* The graph keeps every frame until the palette exists: a fresh
         * buffer per frame, handed over to libavfilter. */
        AVFrame *f = av_frame_alloc();
        if (!f)
            return av_fail(s, err, AVERROR(ENOMEM), "frame");
        f->format = AV_PIX_FMT_RGBA;
        f->width = s->w;
        f->height = s->h;
        if ((ret = av_frame_get_buffer(f, 0)) < 0) {
            av_frame_free(&f);
            return av_fail(s, err, ret, "frame");
        }
        for (int y = 0; y < s->h; y++)
            memcpy(f->data[0] + (ptrdiff_t)y * f->linesize[0], wb_image_row(img, y),
                   (size_t)s->w * 4);
        f->pts = s->frames;
        ret = av_buffersrc_add_frame(s->src, f);
        av_frame_free(&f);
        if (ret < 0)
            return av_fail(s, err, ret, "GIF palette filter");
        s->frames++;
        return drain_graph(s, err);
    }
    Conv *c = conv_slot(s, img);
    if (!c->frame) {
        if (!(c->frame = av_frame_alloc()))
            return av_fail(s, err, AVERROR(ENOMEM), "frame");
        s->frame = c->frame;
        if ((ret = new_frame_buffer(s)) < 0)
            return av_fail(s, err, ret, "frame");
    }
    s->frame = c->frame;
    if (!av_frame_is_writable(s->frame)) {
        if ((ret = next_frame(s)) < 0)
            return av_fail(s, err, ret, "frame");
        c->frame = s->frame;
        c->valid = false;
    }
    const WbImage *pic = padded_source(s, img);
    enum AVPixelFormat pf = s->enc->pix_fmt;
    if (pf == AV_PIX_FMT_YUV420P || pf == AV_PIX_FMT_YUVA420P) {
        uint8_t *planes[4] = {s->frame->data[0], s->frame->data[1], s->frame->data[2],
                              pf == AV_PIX_FMT_YUVA420P ? s->frame->data[3] : NULL};
        /* (A padded copy changes wherever the frame does, and more: whole.) */
        wb_rgba_to_yuv420_damage(pic, planes, s->frame->linesize,
                                 c->valid && pic == img ? damage : NULL);
        c->valid = pic == img;
    } else {
        const uint8_t *src[4] = {pic->px};
        int src_stride[4] = {(int)pic->stride};
        if (sws_scale(s->sws, src, src_stride, 0, pic->h, s->frame->data, s->frame->linesize) !=
            s->frame->height)
            return av_fail(s, err, AVERROR(EINVAL), "pixel conversion failed");
    }
    s->frame->pts = s->frames;
    WbStatus st = encode(s, s->frame, err);
    if (!st)
        s->frames++;
    return st;
}

/* Flush encoder and container; WB_OK when the file is complete. */
static WbStatus finish(WbAvSink *s, WbError *err)
{
    WbStatus st = WB_OK;
    int ret;
    if (s->kind == WB_SINK_GIF) {
        if ((ret = av_buffersrc_add_frame(s->src, NULL)) < 0)
            return av_fail(s, err, ret, "GIF palette filter");
        st = drain_graph(s, err);
    }
    if (!st)
        st = encode(s, NULL, err);
    /* The trailer even after a failure: it is where muxers free what they
     * hold (GIF its last packet). */
    s->trailer = true;
    if ((ret = av_write_trailer(s->fmt)) < 0 && !st)
        st = av_fail(s, err, ret, "cannot finish the container");
    if (!st)
        st = io_check(s, err);
    if (s->fmt->pb && !(s->fmt->oformat->flags & AVFMT_NOFILE)) {
        ret = avio_closep(&s->fmt->pb);
        if (!st && ret < 0)
            st = av_fail(s, err, ret, "closing failed");
    }
    return st;
}

WbStatus wb_avsink_close(WbAvSink *s, bool commit, WbError *err)
{
    if (!s)
        return WB_OK;
    wb_av_log_reset();
    WbStatus st = WB_OK;
    if (commit && s->failed)
        st = wb_error_set(err, WB_E_IO, "'%s' is incomplete: an earlier write failed",
                          shown_path(s));
    else if (commit && s->frames == 0)
        st = wb_error_set(err, WB_E_IO, "no frames were written to '%s'", shown_path(s));
    else if (commit)
        st = finish(s, err);
    bool keep = commit && st == WB_OK;
    char tmp[sizeof s->tmp], path[sizeof s->path];
    bool direct = s->direct;
    memcpy(tmp, s->tmp, sizeof tmp);
    memcpy(path, s->path, sizeof path);
    free_sink(s);
    if (direct)
        return st;
    if (!keep) {
        unlink(tmp);
        return st;
    }
    return wb_outpath_commit(tmp, path, err);
}

/* sink.c — picks the sink for an output path and forwards to it.
 *
 * The kinds live in sink_av.c (everything FFmpeg encodes) and
 * sink_pngseq.c (numbered PNG files through libpng).
 */
#include "io/sink.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/outpath.h"
#include "io/sink_av.h"
#include "io/sink_pngseq.h"

struct WbSink {
    WbSinkKind kind;
    int w, h;
    WbAvSink *av;      /* every kind but the PNG sequence */
    WbPngSeq *seq;
};

static const struct {
    const char *ext;
    WbSinkKind kind;
} exts[] = {
    {".mp4", WB_SINK_MP4}, {".webm", WB_SINK_WEBM}, {".mov", WB_SINK_MOV},
    {".mkv", WB_SINK_MKV}, {".gif", WB_SINK_GIF},   {".webp", WB_SINK_WEBP},
    {".y4m", WB_SINK_Y4M}, {".apng", WB_SINK_APNG}, {".png", WB_SINK_PNG},
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

WbStatus wb_sink_kind_for_path(const char *path, WbSinkKind *kind, WbError *err)
{
    if (path && strcmp(path, "-") == 0) {
        *kind = WB_SINK_Y4M;
        return WB_OK;
    }
    if (path && wb_pngseq_looks_like_pattern(path) && ends_with(path, ".png")) {
        *kind = WB_SINK_PNGSEQ;
        return WB_OK;
    }
    for (size_t i = 0; path && i < sizeof exts / sizeof exts[0]; i++)
        if (ends_with(path, exts[i].ext)) {
            *kind = exts[i].kind;
            return WB_OK;
        }
    /* A device or FIFO (/dev/stdout, a named pipe) gets the stream format. */
    if (path && wb_outpath_is_special(path)) {
        *kind = WB_SINK_Y4M;
        return WB_OK;
    }
    return wb_error_set(err, WB_E_INPUT,
                        "cannot tell what to write for '%s': use .mp4, .webm, .mov, .mkv, .gif, "
                        ".webp, .apng, .y4m, a PNG sequence pattern such as frames/f_%%04d.png "
                        "(a plain .png for one frame), or - for y4m on stdout",
                        path ? path : "(none)");
}

WbStatus wb_sink_preflight(const WbSinkOptions *opt, WbError *err)
{
    WbSinkKind kind;
    WbStatus st = wb_sink_kind_for_path(opt->path, &kind, err);
    if (st)
        return st;
    if (opt->width <= 0 || opt->height <= 0 || opt->width > 32768 || opt->height > 32768)
        return wb_error_set(err, WB_E_INPUT, "frame size %dx%d is out of range (1..32768)",
                            opt->width, opt->height);
    if (opt->fps_num <= 0 || opt->fps_den <= 0)
        return wb_error_set(err, WB_E_INPUT, "frame rate %d/%d is not positive", opt->fps_num,
                            opt->fps_den);
    if (opt->threads < 0)
        return wb_error_set(err, WB_E_INPUT, "threads %d is negative", opt->threads);
    if (kind == WB_SINK_PNG && opt->frame_count != 1)
        return wb_error_set(err, WB_E_INPUT,
                            "'%s' is one picture but %lld frames are to be rendered: give one "
                            "frame (--frames N:N+1) or a sequence pattern such as frame_%%04d.png",
                            opt->path, (long long)opt->frame_count);
    if (kind == WB_SINK_PNGSEQ || kind == WB_SINK_PNG)
        return wb_pngseq_preflight(opt, err);
    st = wb_avsink_preflight(opt, kind, err);
    if (!st && strcmp(opt->path, "-") != 0)
        st = wb_outpath_check(opt->path, err);
    return st;
}

WbStatus wb_sink_open(WbSink **out, const WbSinkOptions *opt, WbError *err)
{
    *out = NULL;
    WbStatus st = wb_sink_preflight(opt, err);
    if (st)
        return st;
    WbSink *s = calloc(1, sizeof *s);
    if (!s)
        return wb_error_set(err, WB_E_IO, "out of memory opening '%s'", opt->path);
    wb_sink_kind_for_path(opt->path, &s->kind, NULL);
    /* A killed run (SIGKILL, a power cut) could not take its temporary
     * files away: the next run into the same place does. */
    if (strcmp(opt->path, "-") != 0)
        wb_outpath_sweep(opt->path, s->kind == WB_SINK_PNGSEQ);
    s->w = opt->width;
    s->h = opt->height;
    st = s->kind == WB_SINK_PNGSEQ || s->kind == WB_SINK_PNG
             ? wb_pngseq_open(&s->seq, opt, err)
             : wb_avsink_open(&s->av, opt, s->kind, err);
    if (st) {
        free(s);
        return st;
    }
    *out = s;
    return WB_OK;
}

WbStatus wb_sink_write(WbSink *sink, const WbImage *frame, const WbDamage *damage, WbError *err)
{
    if (frame->w != sink->w || frame->h != sink->h)
        return wb_error_set(err, WB_E_INPUT, "frame is %dx%d but the output was opened at %dx%d",
                            frame->w, frame->h, sink->w, sink->h);
    return sink->seq ? wb_pngseq_write(sink->seq, frame, err)
                     : wb_avsink_write(sink->av, frame, damage, err);
}

WbStatus wb_sink_close(WbSink *sink, bool commit, WbError *err)
{
    if (!sink)
        return WB_OK;
    WbStatus st = sink->seq ? wb_pngseq_close(sink->seq, commit, err)
                            : wb_avsink_close(sink->av, commit, err);
    free(sink);
    return st;
}

void wb_sink_note(WbSinkNotes *notes, const char *fmt, ...)
{
    if (notes->n >= WB_SINK_NOTES_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes->msg[notes->n++], sizeof notes->msg[0], fmt, ap);
    va_end(ap);
}

void wb_sink_notes(const WbSinkOptions *opt, WbSinkNotes *notes)
{
    notes->n = 0;
    WbSinkKind kind;
    if (wb_sink_kind_for_path(opt->path, &kind, NULL))
        return;
    if (kind == WB_SINK_PNGSEQ || kind == WB_SINK_PNG) {
        if (opt->crf_given || opt->preset_given)
            wb_sink_note(notes, "%s%s%s ignored: PNG is lossless and has no speed preset",
                         opt->crf_given ? "--crf" : "", opt->crf_given && opt->preset_given
                         ? " and " : "", opt->preset_given ? "--preset" : "");
        return;
    }
    wb_avsink_notes(opt, kind, notes);
}

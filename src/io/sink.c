/* sink.c — picks the sink for an output path and forwards to it.
 *
 * The kinds live in sink_av.c (everything FFmpeg encodes) and
 * sink_pngseq.c (numbered PNG files through libpng).  Ping-pong is done
 * here, for every kind alike: each frame is also appended to a temporary
 * file, and close reads them back in reverse.  The other ways cost more: a
 * re-simulation runs the whole scene twice, and frames kept in memory grow
 * with the clip (a video of thousands of frames).  The file costs one
 * frame of memory and w·h·4 bytes of disk a frame; the page cache keeps it
 * in memory while memory lasts.
 */
#include "io/sink.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "io/outpath.h"
#include "io/sink_av.h"
#include "io/sink_pngseq.h"

struct WbSink {
    WbSinkKind kind;
    int w, h;
    WbAvSink *av;      /* every kind but the PNG sequence */
    WbPngSeq *seq;
    FILE *pp;          /* ping-pong: the frames so far, straight RGBA rows, or NULL */
    int64_t pp_n;      /* frames in it */
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
    if (!st && opt->pingpong && !(s->pp = tmpfile())) {
        st = wb_error_set(err, WB_E_IO, "ping-pong: cannot create a temporary file for the "
                          "frames: %s", strerror(errno));
        if (s->seq)
            wb_pngseq_close(s->seq, false, NULL);
        else
            wb_avsink_close(s->av, false, NULL);
    }
    if (st) {
        free(s);
        return st;
    }
    *out = s;
    return WB_OK;
}

int64_t wb_sink_pingpong_frames(int64_t n)
{
    return n <= 2 ? n : 2 * n - 2;
}

static WbStatus sink_put(WbSink *sink, const WbImage *frame, const WbDamage *damage,
                         WbError *err)
{
    return sink->seq ? wb_pngseq_write(sink->seq, frame, err)
                     : wb_avsink_write(sink->av, frame, damage, err);
}

/* Ping-pong: keep a frame (tight rows) for the way back. */
static WbStatus pp_keep(WbSink *sink, const WbImage *frame, WbError *err)
{
    size_t row = 4 * (size_t)frame->w;
    for (int y = 0; y < frame->h; y++)
        if (fwrite(wb_image_row(frame, y), 1, row, sink->pp) != row)
            return wb_error_set(err, WB_E_IO, "ping-pong: cannot keep a frame in the temporary "
                                "file: %s", strerror(errno));
    sink->pp_n++;
    return WB_OK;
}

/* Ping-pong: frames n-2 down to 1 again. */
static WbStatus pp_back(WbSink *sink, WbError *err)
{
    WbImage img;
    WbStatus st = wb_image_alloc(&img, sink->w, sink->h, err);
    size_t row = 4 * (size_t)sink->w;
    off_t size = (off_t)row * sink->h;
    for (int64_t i = sink->pp_n - 2; i >= 1 && !st; i--) {
        if (fseeko(sink->pp, (off_t)i * size, SEEK_SET))
            st = wb_error_set(err, WB_E_IO, "ping-pong: cannot read the temporary file: %s",
                              strerror(errno));
        for (int y = 0; y < sink->h && !st; y++)
            if (fread(wb_image_row(&img, y), 1, row, sink->pp) != row)
                st = wb_error_set(err, WB_E_IO, "ping-pong: cannot read the temporary file");
        /* one buffer for every frame: all of it changed each time */
        if (!st)
            st = sink_put(sink, &img, NULL, err);
    }
    wb_image_free(&img);
    return st;
}

WbStatus wb_sink_write(WbSink *sink, const WbImage *frame, const WbDamage *damage, WbError *err)
{
    if (frame->w != sink->w || frame->h != sink->h)
        return wb_error_set(err, WB_E_INPUT, "frame is %dx%d but the output was opened at %dx%d",
                            frame->w, frame->h, sink->w, sink->h);
    WbStatus st = sink_put(sink, frame, damage, err);
    if (!st && sink->pp)
        st = pp_keep(sink, frame, err);
    return st;
}

WbStatus wb_sink_close(WbSink *sink, bool commit, WbError *err)
{
    if (!sink)
        return WB_OK;
    WbStatus st = WB_OK;
    if (sink->pp) {
        if (commit)
            st = pp_back(sink, err);
        fclose(sink->pp);   /* read only from here: nothing to lose */
    }
    commit = commit && !st;
    WbError cerr;
    wb_error_clear(&cerr);
    WbStatus cst = sink->seq ? wb_pngseq_close(sink->seq, commit, &cerr)
                             : wb_avsink_close(sink->av, commit, &cerr);
    if (!st && cst) {
        st = cst;
        *err = cerr;
    }
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

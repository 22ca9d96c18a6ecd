#include "io/sink_pngseq.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/outpath.h"
#include "io/png.h"

struct WbPngSeq {
    char pattern[4096];
    char first_name[4200];     /* frame `first`'s file: its folders were made for it */
    size_t made;               /* wb_outpath_make_folders' mark, 0 when none were made */
    int64_t first, frames;
    bool alpha;
};

bool wb_pngseq_looks_like_pattern(const char *path)
{
    return strchr(path, '%') != NULL;
}

/* The pattern is parsed by hand rather than handed to snprintf, so a user's
 * path can never become a format string. */
WbStatus wb_pngseq_name(const char *pattern, int64_t n, char *buf, size_t size, WbError *err)
{
    size_t o = 0;
    int convs = 0;
    for (const char *p = pattern; *p; p++) {
        char piece[48];
        size_t len;
        if (*p != '%') {
            piece[0] = *p;
            len = 1;
        } else if (p[1] == '%') {
            piece[0] = '%';
            len = 1;
            p++;
        } else {
            const char *q = p + 1;
            bool zero = *q == '0';
            int width = 0;
            while (*q >= '0' && *q <= '9' && width <= 18)
                width = width * 10 + (*q++ - '0');
            if (*q != 'd' || width > 18)
                return wb_error_set(err, WB_E_INPUT,
                                    "output pattern '%s': only %%d or %%0Nd (N <= 18) may "
                                    "appear, with %%%% for a literal %%",
                                    pattern);
            int k = snprintf(piece, sizeof piece, zero ? "%0*" PRId64 : "%*" PRId64, width, n);
            len = k > 0 ? (size_t)k : 0;
            convs++;
            p = q;
        }
        if (o + len >= size)
            return wb_error_set(err, WB_E_INPUT, "output pattern '%s' makes too long a name",
                                pattern);
        memcpy(buf + o, piece, len);
        o += len;
    }
    buf[o] = '\0';
    if (convs != 1)
        return wb_error_set(err, WB_E_INPUT,
                            "output pattern '%s' needs exactly one frame number (%%d or %%04d)",
                            pattern);
    return WB_OK;
}

/* The file of frame n: the pattern's, or a single PNG's own path (a path
 * without '%', for a one-frame range: sink.c checks the count). */
static WbStatus file_name(const char *path, int64_t n, char *buf, size_t size, WbError *err)
{
    if (wb_pngseq_looks_like_pattern(path))
        return wb_pngseq_name(path, n, buf, size, err);
    if (strlen(path) >= size)
        return wb_error_set(err, WB_E_INPUT, "output path '%s' is too long", path);
    strcpy(buf, path);
    return WB_OK;
}

WbStatus wb_pngseq_preflight(const WbSinkOptions *opt, WbError *err)
{
    char name[4200];
    WbStatus st = file_name(opt->path, opt->first_frame, name, sizeof name, err);
    if (st)
        return st;
    if (opt->codec && strcmp(opt->codec, "png") != 0)
        return wb_error_set(err, WB_E_INPUT, "codec '%s' cannot write '%s': it takes only 'png'",
                            opt->codec, opt->path);
    if (opt->pix_fmt && strcmp(opt->pix_fmt, "rgba") != 0 && strcmp(opt->pix_fmt, "rgb24") != 0)
        return wb_error_set(err, WB_E_INPUT,
                            "pixel format '%s' is not supported by 'png'; supported: rgb24 rgba",
                            opt->pix_fmt);
    /* A folder the pattern names is made at open ("frames/f_%04d.png"). */
    return wb_outpath_check_creatable(name, err);
}

WbStatus wb_pngseq_open(WbPngSeq **out, const WbSinkOptions *opt, WbError *err)
{
    *out = NULL;
    WbStatus st = wb_pngseq_preflight(opt, err);
    if (st)
        return st;
    WbPngSeq *s = calloc(1, sizeof *s);
    if (!s)
        return wb_error_set(err, WB_E_IO, "out of memory opening '%s'", opt->path);
    if (strlen(opt->path) >= sizeof s->pattern) {
        free(s);
        return wb_error_set(err, WB_E_INPUT, "output pattern is too long");
    }
    strcpy(s->pattern, opt->path);
    s->first = opt->first_frame;
    s->alpha = opt->pix_fmt ? strcmp(opt->pix_fmt, "rgba") == 0 : opt->alpha;
    st = file_name(s->pattern, s->first, s->first_name, sizeof s->first_name, err);
    if (!st)
        st = wb_outpath_make_folders(s->first_name, &s->made, err);
    if (st) {
        free(s);
        return st;
    }
    *out = s;
    return WB_OK;
}

WbStatus wb_pngseq_write(WbPngSeq *s, const WbImage *frame, WbError *err)
{
    char name[4200];
    if (!wb_pngseq_looks_like_pattern(s->pattern) && s->frames > 0)
        return wb_error_set(err, WB_E_INPUT, "'%s' is one picture: a second frame has no place "
                            "(use a pattern such as frame_%%04d.png)", s->pattern);
    WbStatus st = file_name(s->pattern, s->first + s->frames, name, sizeof name, err);
    if (!st)
        st = wb_png_write(name, frame, s->alpha, err);
    if (!st)
        s->frames++;
    return st;
}

WbStatus wb_pngseq_close(WbPngSeq *s, bool commit, WbError *err)
{
    if (!s)
        return WB_OK;
    WbStatus st = WB_OK;
    if (!commit) {
        /* Every file this sink finished; names are regenerated, not stored. */
        char name[4200];
        for (int64_t i = 0; i < s->frames; i++)
            if (file_name(s->pattern, s->first + i, name, sizeof name, NULL) == WB_OK)
                unlink(name);
    } else if (s->frames == 0) {
        st = wb_error_set(err, WB_E_IO, "no frames were written to '%s'", s->pattern);
    }
    /* Nothing kept: the folders made at open go too (when still empty). */
    if (!commit || s->frames == 0)
        wb_outpath_unmake_folders(s->first_name, s->made);
    free(s);
    return st;
}

#include "core/error.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void wb_error_clear(WbError *err)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
}

WbStatus wb_error_vset(WbError *err, WbStatus status, const char *fmt, va_list ap)
{
    if (err) {
        err->status = status;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return status;
}

WbStatus wb_error_set(WbError *err, WbStatus status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err) {
        err->file[0] = '\0';
        err->line = err->col = 0;
        err->source[0] = '\0';
    }
    wb_error_vset(err, status, fmt, ap);
    va_end(ap);
    return status;
}

WbStatus wb_error_at(WbError *err, WbStatus status, const char *file, int line,
                     int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err) {
        snprintf(err->file, sizeof err->file, "%s", file ? file : "");
        err->line = line;
        err->col = col;
        err->source[0] = '\0';
    }
    wb_error_vset(err, status, fmt, ap);
    va_end(ap);
    return status;
}

void wb_error_set_source(WbError *err, const char *line, size_t len)
{
    if (!err)
        return;
    if (len >= sizeof err->source)
        len = sizeof err->source - 1;
    memcpy(err->source, line, len);
    err->source[len] = '\0';
}

size_t wb_line_break(const char *p, const char *end)
{
    const unsigned char *u = (const unsigned char *)p;
    size_t left = (size_t)(end - p);
    if (u[0] == '\n')
        return 1;
    if (u[0] == '\r')
        return left > 1 && u[1] == '\n' ? 2 : 1;
    if (u[0] == 0xC2 && left > 1 && u[1] == 0x85)
        return 2;
    if (u[0] == 0xE2 && left > 2 && u[1] == 0x80 && (u[2] == 0xA8 || u[2] == 0xA9))
        return 3;
    return 0;
}

bool wb_source_line(const char *text, size_t len, int line, const char **start, size_t *n)
{
    const char *p = text, *end = text + len;
    for (int at = 1; at < line; p++) {
        if (p >= end)
            return false;
        size_t b = wb_line_break(p, end);
        if (b) {
            at++;
            p += b - 1;
        }
    }
    const char *e = p;
    while (e < end && !wb_line_break(e, end))
        e++;
    *start = p;
    *n = (size_t)(e - p);
    return true;
}

/* Line `line` (1-based) of `path` into buf, without its line break; false
 * when the file or the line is not there (e.g. "--set" or stdin).  Reads
 * at most the first 16 MiB, as the scene loader does. */
static bool read_source_line(const char *path, int line, char *buf, size_t n)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return false;
    enum { LIMIT = 16 << 20 };
    size_t cap = 0, len = 0;
    char *text = NULL;
    while (len < LIMIT) {
        if (len == cap) {
            size_t ncap = cap ? 2 * cap : 65536;
            char *t = realloc(text, ncap);
            if (!t)
                break;
            text = t;
            cap = ncap;
        }
        size_t got = fread(text + len, 1, cap - len, in);
        if (got == 0)
            break;
        len += got;
    }
    fclose(in);
    const char *s;
    size_t sn;
    bool ok = text && wb_source_line(text, len, line, &s, &sn) && sn > 0;
    if (ok) {
        sn = sn < n - 1 ? sn : n - 1;
        memcpy(buf, s, sn);
        buf[sn] = '\0';
    }
    free(text);
    return ok;
}

void wb_error_print(const WbError *err, const char *prog, FILE *f)
{
    char source[WB_ERROR_LINE_MAX];
    const char *src = err->source;
    /* Errors found after loading (e.g. a pixel point outside the image) carry
     * the place but not the text: fetch the line so the caret still shows. */
    if (!src[0] && err->file[0] && err->line > 0 && strcmp(err->file, "--set") != 0 &&
        read_source_line(err->file, err->line, source, sizeof source))
        src = source;
    if (err->file[0] && err->line > 0)
        fprintf(f, "%s:%d:%d: error: %s\n", err->file, err->line, err->col, err->msg);
    else if (err->file[0])
        fprintf(f, "%s: error: %s\n", err->file, err->msg);
    else
        fprintf(f, "%s: error: %s\n", prog, err->msg);
    if (src[0] && err->col > 0) {
        /* The line as it stands, but a control character (other than a
         * tab) shows as '?': one column, and no terminal escapes. */
        fputs("  ", f);
        for (const unsigned char *c = (const unsigned char *)src; *c; c++)
            fputc(*c == '\t' || (*c >= 0x20 && *c != 0x7f) ? *c : '?', f);
        fputs("\n  ", f);
        /* Keep tabs so the caret lines up under tab-indented text.  The
         * column counts characters (as libyaml's marks do), so a UTF-8
         * sequence takes one space, not one per byte. */
        const char *p = src;
        for (int i = 1; i < err->col && *p; i++) {
            fputc(*p == '\t' ? '\t' : ' ', f);
            do
                p++;
            while (((unsigned char)*p & 0xC0) == 0x80);
        }
        fputs("^\n", f);
    }
}

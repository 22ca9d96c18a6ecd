#include "core/error.h"

#include <stdbool.h>
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

/* Line `line` (1-based) of `path` into buf, without its newline; false when
 * the file or the line is not there (e.g. "--set" or stdin). */
static bool read_source_line(const char *path, int line, char *buf, size_t n)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return false;
    int c, at = 1;
    size_t len = 0;
    while (at < line && (c = getc(in)) != EOF)
        if (c == '\n')
            at++;
    while (at == line && (c = getc(in)) != EOF && c != '\n' && c != '\r')
        if (len + 1 < n)
            buf[len++] = (char)c;
    buf[len] = '\0';
    fclose(in);
    return at == line && len > 0;
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
        fprintf(f, "  %s\n  ", src);
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

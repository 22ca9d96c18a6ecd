/* error.h — errors as values.
 *
 * Every fallible function returns a WbStatus and, on failure, fills the
 * caller's WbError.  Input problems carry the place they were found
 * (file:line:col, 1-based) and the offending source line so the caller can
 * print a caret under it.  Only main() prints an error and picks the exit
 * code; library code never writes to stdout/stderr and never exits.
 */
#ifndef WB_ERROR_H
#define WB_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Status codes double as the process exit codes of `wobble` (see wobble(1)). */
typedef enum WbStatus {
    WB_OK = 0,
    WB_E_DIFF = 1,        /* `wobble check`: frames differ from the goldens */
    WB_E_INPUT = 2,       /* usage or invalid input (scene, image, option) */
    WB_E_IO = 3,          /* I/O or encoder failure */
    WB_E_DIVERGED = 4,    /* the simulation produced NaN/Inf or ran away */
    WB_E_INTERRUPTED = 130 /* SIGINT/SIGTERM; what was written is finalized */
} WbStatus;

#define WB_ERROR_MSG_MAX 1024
#define WB_ERROR_PATH_MAX 1024
#define WB_ERROR_LINE_MAX 256

typedef struct WbError {
    WbStatus status;
    char msg[WB_ERROR_MSG_MAX];    /* what was found and what was expected */
    char file[WB_ERROR_PATH_MAX];  /* "" when the error has no place */
    int line, col;                 /* 1-based; 0 when unknown */
    char source[WB_ERROR_LINE_MAX];/* the offending line, for the caret; may be "" */
} WbError;

/* Reset to "no error". */
void wb_error_clear(WbError *err);

/* Fill err (if non-NULL) and return status. */
WbStatus wb_error_set(WbError *err, WbStatus status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Same, with a place in an input file; line/col are 1-based. */
WbStatus wb_error_at(WbError *err, WbStatus status, const char *file, int line,
                     int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

WbStatus wb_error_vset(WbError *err, WbStatus status, const char *fmt, va_list ap);

/* Attach the source line shown under a file:line:col message (truncated). */
void wb_error_set_source(WbError *err, const char *line, size_t len);

/* Length of the line break at p (p < end), 0 if none: what libyaml counts
 * as one — CR LF, CR, LF, and NEL, LS, PS in UTF-8. */
size_t wb_line_break(const char *p, const char *end);

/* Line `line` (1-based) of text[0..len), lines split as wb_line_break does:
 * its start in *start and its length (break excluded); false when there is
 * no such line. */
bool wb_source_line(const char *text, size_t len, int line, const char **start, size_t *n);

/* Print "file:line:col: error: msg", then the source line and a caret, to f.
 * `prog` prefixes errors that have no place ("wobble: error: ..."). */
void wb_error_print(const WbError *err, const char *prog, FILE *f);

#endif

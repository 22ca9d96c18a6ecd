#include "cli/table.h"

#include <stdarg.h>
#include <string.h>

WbStatus wb_table_format_parse(const char *s, WbTableFormat *f, WbError *err)
{
    if (!strcmp(s, "md"))
        *f = WB_TABLE_MD;
    else if (!strcmp(s, "csv"))
        *f = WB_TABLE_CSV;
    else if (!strcmp(s, "json"))
        *f = WB_TABLE_JSON;
    else
        return wb_error_set(err, WB_E_INPUT, "--format: '%s' is not md, csv or json", s);
    return WB_OK;
}

void wb_table_row(WbTable *t, const char *fmt, ...)
{
    if (t->n_rows >= WB_TABLE_MAX_ROWS)
        return;
    char line[WB_TABLE_MAX_COLS * WB_TABLE_CELL];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char *p = line;
    for (int c = 0; c < t->n_cols; c++) {
        char *bar = strchr(p, '|');
        if (bar)
            *bar = '\0';
        size_t len = strlen(p);
        if (len >= WB_TABLE_CELL)
            len = WB_TABLE_CELL - 1;
        memcpy(t->cell[t->n_rows][c], p, len);
        t->cell[t->n_rows][c][len] = '\0';
        p = bar ? bar + 1 : p + strlen(p);
    }
    t->n_rows++;
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void wb_table_write(const WbTable *t, WbTableFormat f, FILE *out)
{
    switch (f) {
    case WB_TABLE_MD:
        for (int c = 0; c < t->n_cols; c++)
            fprintf(out, "| %s ", t->head[c]);
        fputs("|\n", out);
        for (int c = 0; c < t->n_cols; c++)
            fputs(t->numeric[c] ? "|---:" : "|---", out);
        fputs("|\n", out);
        for (int r = 0; r < t->n_rows; r++) {
            for (int c = 0; c < t->n_cols; c++)
                fprintf(out, "| %s ", t->cell[r][c]);
            fputs("|\n", out);
        }
        break;
    case WB_TABLE_CSV:
        for (int c = 0; c < t->n_cols; c++)
            fprintf(out, "%s%s", c ? "," : "", t->head[c]);
        fputc('\n', out);
        for (int r = 0; r < t->n_rows; r++) {
            for (int c = 0; c < t->n_cols; c++)
                fprintf(out, "%s%s", c ? "," : "", t->cell[r][c]);
            fputc('\n', out);
        }
        break;
    case WB_TABLE_JSON:
        fputs("[", out);
        for (int r = 0; r < t->n_rows; r++) {
            fputs(r ? ",\n  {" : "\n  {", out);
            for (int c = 0; c < t->n_cols; c++) {
                if (c)
                    fputs(", ", out);
                json_string(out, t->head[c]);
                fputs(": ", out);
                if (t->numeric[c])
                    fputs(t->cell[r][c], out);
                else
                    json_string(out, t->cell[r][c]);
            }
            fputc('}', out);
        }
        fputs("\n]\n", out);
        break;
    }
}

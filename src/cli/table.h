/* table.h — a small table written as Markdown, CSV or JSON.
 *
 * Cells are strings the caller formats (so the same digits appear in every
 * format); numeric columns are written unquoted in JSON.
 */
#ifndef WB_TABLE_H
#define WB_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/error.h"

typedef enum WbTableFormat { WB_TABLE_MD, WB_TABLE_CSV, WB_TABLE_JSON } WbTableFormat;

#define WB_TABLE_MAX_COLS 12
#define WB_TABLE_MAX_ROWS 128
#define WB_TABLE_CELL 48

typedef struct WbTable {
    int n_cols, n_rows;
    const char *head[WB_TABLE_MAX_COLS];  /* column titles (static strings) */
    bool numeric[WB_TABLE_MAX_COLS];      /* unquoted in JSON */
    char cell[WB_TABLE_MAX_ROWS][WB_TABLE_MAX_COLS][WB_TABLE_CELL];
} WbTable;

WbStatus wb_table_format_parse(const char *s, WbTableFormat *f, WbError *err);

/* Append a row; cells given printf-style, one format per column, e.g.
 * wb_table_row(t, "%s|%.3f|%d", name, x, n) — '|' separates the columns. */
void wb_table_row(WbTable *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void wb_table_write(const WbTable *t, WbTableFormat f, FILE *out);

#endif

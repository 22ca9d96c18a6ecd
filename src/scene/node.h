/* node.h — a small YAML document tree with source positions.
 *
 * libyaml's event stream is folded into maps, sequences and scalars.  Every
 * node remembers where it starts (1-based line and column) and which source
 * text it came from, so any later stage — the schema binder, the --set
 * overrides — can report "file:line:col" and attach the source line for a
 * caret without keeping libyaml around.  Scalars keep their text verbatim and
 * whether they were quoted, so `fps: "30"` (a string) can be told from
 * `fps: 30` (a number).
 *
 * Ownership: a WbNode owns its children; a WbSource outlives every node that
 * points to it (the loader keeps both together).
 */
#ifndef WB_NODE_H
#define WB_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

typedef enum WbNodeKind { WB_NODE_SCALAR, WB_NODE_SEQ, WB_NODE_MAP } WbNodeKind;

/* One input text: a scene file or a single `--set key=value` argument. */
typedef struct WbSource {
    const char *name;   /* shown in messages: the file name or "--set" */
    const char *text;   /* the whole text (NUL-terminated), for source lines */
    size_t len;
    bool is_set;        /* came from the command line (paths resolve from cwd) */
    const char *option; /* built from this option (--fps, --size, ...), not typed
                           as text: messages name it and show no source line */
} WbSource;

typedef struct WbNode {
    WbNodeKind kind;
    int line, col;             /* 1-based start of the node in src */
    const WbSource *src;
    bool quoted;               /* scalar: written quoted or as a block literal */
    char *text;                /* scalar: its value (NUL-terminated, owned) */
    size_t n;                  /* seq: items; map: key/value pairs */
    struct WbNode **items;     /* seq items, or map values */
    struct WbNode **keys;      /* map keys (scalars), parallel to items */
} WbNode;

/* Parse text[0..len) (src->text, or a part of it) as one YAML document.  On
 * success *out is the root node, or NULL when the document is empty.
 * `col_shift` is added to every column (a --set value starts after "key=").
 * Syntax errors, aliases, non-scalar keys and more than one document are
 * WB_E_INPUT at their place in src. */
WbStatus wb_node_parse(const WbSource *src, const char *text, size_t len, int col_shift,
                       WbNode **out, WbError *err);

/* Apply one `key.path=value` (src->text, src->is_set) to the tree: the value
 * is read as YAML when it starts with [ { " or ', else taken verbatim as a
 * plain scalar; path segments name map keys or, on lists, item numbers
 * (0-based; the item count appends).  Missing maps on the way are created,
 * an existing value is replaced.  Errors are at the column in src. */
WbStatus wb_node_override(WbNode **root, const WbSource *src, WbError *err);

/* A fresh node (children empty); NULL when out of memory. */
WbNode *wb_node_new(WbNodeKind kind, const WbSource *src, int line, int col);
/* Append a key/value pair to a map, or (key NULL) an item to a sequence.
 * Takes ownership of both on success; false when out of memory. */
bool wb_node_append(WbNode *parent, WbNode *key, WbNode *value);
void wb_node_free(WbNode *node);

/* The value stored under `key` in a map (NULL when absent or not a map);
 * *index receives its position when index is non-NULL. */
WbNode *wb_node_get(const WbNode *map, const char *key, size_t *index);

/* A YAML "null" scalar: plain and empty, `~`, `null`, `Null` or `NULL`. */
bool wb_node_is_null(const WbNode *node);

/* Fill err with WB_E_INPUT at the node's place, with its source line. */
WbStatus wb_node_error(WbError *err, const WbNode *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Same at an explicit place of a source. */
WbStatus wb_source_error(WbError *err, const WbSource *src, int line, int col,
                         const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A short description of what a node is, for "found ..." messages:
 * "a mapping", "a sequence", "nothing", or the scalar quoted ('abc'). */
void wb_node_describe(const WbNode *node, char *buf, size_t size);

#endif

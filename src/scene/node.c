/* node.c — libyaml events folded into a WbNode tree (see node.h). */
#include "scene/node.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Nesting deeper than this is not a scene; the limit keeps the recursive
 * builder's stack bounded on hostile input. */
#define NODE_MAX_DEPTH 64

typedef struct Builder {
    yaml_parser_t parser;
    const WbSource *src;
    const char *text;   /* what libyaml reads: src->text or a part of it */
    size_t len;
    int col_shift;
    WbError *err;
} Builder;

WbNode *wb_node_new(WbNodeKind kind, const WbSource *src, int line, int col)
{
    WbNode *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->kind = kind;
    n->src = src;
    n->line = line;
    n->col = col;
    return n;
}

/* The arrays hold the smallest power of two >= n slots, so they double
 * when n reaches one: a long list costs linear time, not a copy per item. */
bool wb_node_append(WbNode *parent, WbNode *key, WbNode *value)
{
    const size_t n = parent->n;
    if ((n & (n - 1)) == 0) { /* 0 or a power of two: full */
        const size_t cap = n ? 2 * n : 1;
        WbNode **items = realloc(parent->items, cap * sizeof *items);
        if (!items)
            return false;
        parent->items = items;
        if (parent->kind == WB_NODE_MAP) {
            WbNode **keys = realloc(parent->keys, cap * sizeof *keys);
            if (!keys)
                return false;
            parent->keys = keys;
        }
    }
    if (parent->kind == WB_NODE_MAP)
        parent->keys[n] = key;
    parent->items[parent->n++] = value;
    return true;
}

void wb_node_free(WbNode *node)
{
    if (!node)
        return;
    for (size_t i = 0; i < node->n; i++) {
        wb_node_free(node->items[i]);
        if (node->keys)
            wb_node_free(node->keys[i]);
    }
    free(node->items);
    free(node->keys);
    free(node->text);
    free(node);
}

WbNode *wb_node_get(const WbNode *map, const char *key, size_t *index)
{
    if (!map || map->kind != WB_NODE_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++) {
        if (strcmp(map->keys[i]->text, key) == 0) {
            if (index)
                *index = i;
            return map->items[i];
        }
    }
    return NULL;
}

bool wb_node_is_null(const WbNode *node)
{
    if (!node || node->kind != WB_NODE_SCALAR || node->quoted)
        return false;
    const char *t = node->text;
    return !t[0] || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") ||
           !strcmp(t, "NULL");
}

/* Copy line `line` (1-based) of the source into err->source. */
static void attach_source(WbError *err, const WbSource *src, int line)
{
    if (!err || !src || !src->text || line < 1)
        return;
    const char *p;
    size_t n;
    if (wb_source_line(src->text, src->len, line, &p, &n))
        wb_error_set_source(err, p, n);
}

static WbStatus verror_at(WbError *err, const WbSource *src, int line, int col,
                          const char *fmt, va_list ap)
{
    char msg[WB_ERROR_MSG_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (src && src->option) /* the user typed the option, not this text */
        return wb_error_set(err, WB_E_INPUT, "%s: %s", src->option, msg);
    wb_error_at(err, WB_E_INPUT, src ? src->name : "", line, col, "%s", msg);
    attach_source(err, src, line);
    return WB_E_INPUT;
}

WbStatus wb_source_error(WbError *err, const WbSource *src, int line, int col,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    WbStatus st = verror_at(err, src, line, col, fmt, ap);
    va_end(ap);
    return st;
}

WbStatus wb_node_error(WbError *err, const WbNode *node, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    WbStatus st = verror_at(err, node->src, node->line, node->col, fmt, ap);
    va_end(ap);
    return st;
}

void wb_node_describe(const WbNode *node, char *buf, size_t size)
{
    if (!node || wb_node_is_null(node))
        snprintf(buf, size, "nothing");
    else if (node->kind == WB_NODE_MAP)
        snprintf(buf, size, "a mapping");
    else if (node->kind == WB_NODE_SEQ)
        snprintf(buf, size, "a sequence of %zu item%s", node->n, node->n == 1 ? "" : "s");
    else {
        /* At most 60 bytes of the text, with line breaks, tabs and other
         * control characters escaped: a quoted or block scalar may hold
         * them, and the message must stay one line (the caret line follows
         * it) and print no terminal escapes. */
        char text[4 * 60 + 1];
        size_t n = 0;
        const unsigned char *t0 = (const unsigned char *)node->text;
        for (const unsigned char *t = t0; *t && t - t0 < 60; t++) {
            if (*t == '\n')
                n += (size_t)snprintf(text + n, sizeof text - n, "\\n");
            else if (*t == '\t')
                n += (size_t)snprintf(text + n, sizeof text - n, "\\t");
            else if (*t < 0x20 || *t == 0x7f)
                n += (size_t)snprintf(text + n, sizeof text - n, "\\x%02x", *t);
            else
                text[n++] = (char)*t;
            text[n] = '\0';
        }
        text[n] = '\0';
        if (node->quoted)
            snprintf(buf, size, "the string \"%s\"", text);
        else
            snprintf(buf, size, "'%s'", text);
    }
}

static int mark_line(const yaml_mark_t *m) { return (int)m->line + 1; }
static int mark_col(const Builder *b, const yaml_mark_t *m)
{
    return (int)m->column + 1 + b->col_shift;
}

/* Line and column (1-based; the column in characters, as libyaml's marks
 * count them) of byte `off` of the text being read. */
static void text_place(const Builder *b, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    const char *end = b->text + b->len;
    for (size_t i = 0; i < off && i < b->len; i++) {
        size_t brk = wb_line_break(b->text + i, end);
        if (brk) {
            ++*line;
            *col = 1;
            i += brk - 1;
        } else if (((unsigned char)b->text[i] & 0xC0) != 0x80) {
            ++*col;
        }
    }
}

static WbStatus syntax_error(Builder *b)
{
    const yaml_parser_t *p = &b->parser;
    if (p->error == YAML_MEMORY_ERROR)
        return wb_error_set(b->err, WB_E_IO, "out of memory while reading %s", b->src->name);
    if (p->error == YAML_READER_ERROR) {
        /* libyaml gives a byte offset only (bad UTF-8, a control character):
         * the message shows the place like every other one. */
        int line, col;
        text_place(b, p->problem_offset, &line, &col);
        if (b->src->is_set)
            line = 1;
        return wb_source_error(b->err, b->src, line, col + b->col_shift,
                               "invalid YAML: %s at byte %zu", p->problem ? p->problem : "unreadable input",
                               p->problem_offset);
    }
    const yaml_mark_t *m = &p->problem_mark;
    int line = mark_line(m), col = mark_col(b, m);
    size_t chars = 0;   /* libyaml's mark.index counts characters, not bytes */
    for (size_t i = 0; i < b->len; i++)
        chars += ((unsigned char)b->text[i] & 0xC0) != 0x80;
    if (!b->src->is_set && m->index >= chars) {
        /* At the end of the input (a file cut short, a quote or bracket never
         * closed) libyaml's mark is on the line after the last one, which has
         * no text to show: point just past the last character instead. */
        size_t e = b->len;
        while (e > 0 && (b->text[e - 1] == '\n' || b->text[e - 1] == '\r' ||
                         b->text[e - 1] == ' ' || b->text[e - 1] == '\t'))
            e--;
        text_place(b, e, &line, &col);
        col += b->col_shift;
    }
    if (b->src->is_set) {
        /* A --set value is one line; libyaml may place "end of input" on the
         * line after it. */
        line = 1;
        col = b->col_shift + 1 + (int)(m->index < b->len ? m->index : b->len);
    }
    /* libyaml's own wording, plus the one hint a YAML beginner needs most. */
    const char *hint = "";
    if (m->index < b->len && b->text[m->index] == '\t')
        hint = " (tabs are not allowed for indentation; use spaces)";
    if (p->context && p->context_mark.index == m->index)
        return wb_source_error(b->err, b->src, line, col, "invalid YAML: %s %s%s",
                               p->problem ? p->problem : "syntax error", p->context, hint);
    if (p->context) {
        const yaml_mark_t *cm = &p->context_mark;
        return wb_source_error(b->err, b->src, line, col,
                               "invalid YAML: %s %s that started at line %d, column %d%s",
                               p->problem ? p->problem : "syntax error", p->context,
                               mark_line(cm), b->src->is_set ? 1 + b->col_shift + (int)cm->index
                                                             : mark_col(b, cm),
                               hint);
    }
    return wb_source_error(b->err, b->src, line, col, "invalid YAML: %s%s",
                           p->problem ? p->problem : "syntax error", hint);
}

static WbStatus next_event(Builder *b, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&b->parser, ev))
        return syntax_error(b);
    return WB_OK;
}

static WbStatus build(Builder *b, yaml_event_t *ev, int depth, WbNode **out);

static WbStatus oom(Builder *b)
{
    return wb_error_set(b->err, WB_E_IO, "out of memory while reading %s", b->src->name);
}

/* Items (or key/value pairs) until the matching end event. */
static WbStatus build_children(Builder *b, WbNode *parent, int depth)
{
    yaml_event_type_t end = parent->kind == WB_NODE_MAP ? YAML_MAPPING_END_EVENT
                                                       : YAML_SEQUENCE_END_EVENT;
    for (;;) {
        yaml_event_t ev;
        WbStatus st = next_event(b, &ev);
        if (st)
            return st;
        if (ev.type == end) {
            yaml_event_delete(&ev);
            return WB_OK;
        }
        WbNode *key = NULL, *value = NULL;
        st = build(b, &ev, depth + 1, parent->kind == WB_NODE_MAP ? &key : &value);
        if (st)
            return st;
        if (parent->kind == WB_NODE_MAP) {
            if (key->kind != WB_NODE_SCALAR) {
                st = wb_node_error(b->err, key, "a key must be a plain name, found %s",
                                   key->kind == WB_NODE_MAP ? "a mapping" : "a sequence");
                wb_node_free(key);
                return st;
            }
            st = next_event(b, &ev);
            if (!st)
                st = build(b, &ev, depth + 1, &value);
            if (st) {
                wb_node_free(key);
                return st;
            }
        }
        if (!wb_node_append(parent, key, value)) {
            wb_node_free(key);
            wb_node_free(value);
            return oom(b);
        }
    }
}

/* The tag written on a node (`!foo 320`, `!!binary ...`), or NULL.  Tags
 * would change what a value means, and the binder would silently drop
 * them: they are refused, as aliases are. */
static const char *node_tag(const yaml_event_t *ev)
{
    const yaml_char_t *t = ev->type == YAML_SCALAR_EVENT ? ev->data.scalar.tag
                           : ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.tag
                           : ev->type == YAML_MAPPING_START_EVENT ? ev->data.mapping_start.tag
                                                                  : NULL;
    return (const char *)t;
}

/* Build the node that starts with *ev (consumed here). */
static WbStatus build(Builder *b, yaml_event_t *ev, int depth, WbNode **out)
{
    int line = mark_line(&ev->start_mark), col = mark_col(b, &ev->start_mark);
    WbStatus st = WB_OK;
    WbNode *n = NULL;
    const char *tag = node_tag(ev);
    if (tag) {
        st = wb_source_error(b->err, b->src, line, col,
                             "YAML tags (%s) are not supported in scene files; write the value "
                             "plainly", tag);
        yaml_event_delete(ev);
        return st;
    }
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        /* "a\0b" would end the C string early and quietly name another
         * file: a NUL in a value is refused. */
        if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length)) {
            st = wb_source_error(b->err, b->src, line, col,
                                 "a value may not hold a NUL character (\\0)");
            break;
        }
        n = wb_node_new(WB_NODE_SCALAR, b->src, line, col);
        if (n) {
            n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
            n->text = malloc(ev->data.scalar.length + 1);
            if (n->text) {
                memcpy(n->text, ev->data.scalar.value, ev->data.scalar.length);
                n->text[ev->data.scalar.length] = '\0';
            }
        }
        if (!n || !n->text)
            st = oom(b);
        break;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        if (depth > NODE_MAX_DEPTH) {
            st = wb_source_error(b->err, b->src, line, col,
                                 "nesting deeper than %d levels", NODE_MAX_DEPTH);
            break;
        }
        n = wb_node_new(ev->type == YAML_MAPPING_START_EVENT ? WB_NODE_MAP : WB_NODE_SEQ,
                        b->src, line, col);
        if (!n) {
            st = oom(b);
            break;
        }
        yaml_event_delete(ev);
        st = build_children(b, n, depth);
        if (st) {
            wb_node_free(n);
            return st;
        }
        *out = n;
        return WB_OK;
    case YAML_ALIAS_EVENT:
        st = wb_source_error(b->err, b->src, line, col,
                             "aliases (*%s) are not supported in scene files; write the value out",
                             (const char *)ev->data.alias.anchor);
        break;
    default:
        st = wb_source_error(b->err, b->src, line, col, "unexpected YAML structure");
        break;
    }
    yaml_event_delete(ev);
    if (st) {
        wb_node_free(n);
        return st;
    }
    *out = n;
    return WB_OK;
}

WbStatus wb_node_parse(const WbSource *src, const char *text, size_t len, int col_shift,
                       WbNode **out, WbError *err)
{
    Builder b = {.src = src, .text = text, .len = len, .col_shift = col_shift, .err = err};
    *out = NULL;
    if (!yaml_parser_initialize(&b.parser))
        return wb_error_set(err, WB_E_IO, "out of memory while reading %s", src->name);
    yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);

    WbNode *root = NULL;
    int docs = 0;
    WbStatus st = WB_OK;
    for (;;) {
        yaml_event_t ev;
        st = next_event(&b, &ev);
        if (st)
            break;
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (t == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
            st = wb_source_error(err, src, mark_line(&ev.start_mark), mark_col(&b, &ev.start_mark),
                                 "a scene holds one YAML document; found a second one");
            yaml_event_delete(&ev);
            break;
        }
        if (t == YAML_SCALAR_EVENT || t == YAML_SEQUENCE_START_EVENT ||
            t == YAML_MAPPING_START_EVENT || t == YAML_ALIAS_EVENT) {
            st = build(&b, &ev, 0, &root);
            if (st)
                break;
            continue;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&b.parser);
    if (st) {
        wb_node_free(root);
        return st;
    }
    *out = root;
    return WB_OK;
}

/* ------------------------------------------------------------ overrides */

/* The value of a --set: YAML when it looks like flow YAML, else verbatim, so
 * `output.background=#ff0000` and `photo.image=a b.png` mean what they say. */
static WbStatus override_value(const WbSource *src, size_t at, WbNode **out, WbError *err)
{
    const char *v = src->text + at;
    int col = (int)at + 1;
    if (strchr("[{\"'", v[0]) && v[0]) {
        WbStatus st = wb_node_parse(src, v, strlen(v), (int)at, out, err);
        if (st)
            return st;
        if (*out)
            return WB_OK;
    }
    WbNode *n = wb_node_new(WB_NODE_SCALAR, src, 1, col);
    if (!n || !(n->text = strdup(v))) {
        wb_node_free(n);
        return wb_error_set(err, WB_E_IO, "out of memory");
    }
    *out = n;
    return WB_OK;
}

/* Store `value` under `seg` of map `cur` (replacing), or return the child
 * map to descend into (creating it). */
static WbStatus override_in_map(WbNode *cur, const WbSource *src, const char *seg, int col,
                                WbNode **value, WbNode **next, WbError *err)
{
    size_t idx;
    WbNode *child = wb_node_get(cur, seg, &idx);
    if (child && *value) {
        wb_node_free(child);
        cur->items[idx] = *value;
        *value = NULL;
        return WB_OK;
    }
    if (child) {
        *next = child;
        return WB_OK;
    }
    WbNode *key = wb_node_new(WB_NODE_SCALAR, src, 1, col);
    WbNode *val = *value ? *value : wb_node_new(WB_NODE_MAP, src, 1, col);
    if (!key || !val || !(key->text = strdup(seg)) || !wb_node_append(cur, key, val)) {
        wb_node_free(key);
        if (val != *value)
            wb_node_free(val);
        return wb_error_set(err, WB_E_IO, "out of memory");
    }
    if (*value)
        *value = NULL;
    else
        *next = val;
    return WB_OK;
}

static WbStatus override_in_seq(WbNode *cur, const WbSource *src, const char *seg, int col,
                                const char *where, WbNode **value, WbNode **next, WbError *err)
{
    char *end;
    errno = 0;
    unsigned long idx = strtoul(seg, &end, 10);
    if (!isdigit((unsigned char)seg[0]) || *end || errno)
        return wb_source_error(err, src, 1, col,
                               "'%s' is a list: expected an item number, found '%s'", where, seg);
    if (idx > cur->n)
        return wb_source_error(err, src, 1, col,
                               "item %lu does not exist: '%s' has %zu item%s", idx, where, cur->n,
                               cur->n == 1 ? "" : "s");
    if (idx < cur->n && *value) {
        wb_node_free(cur->items[idx]);
        cur->items[idx] = *value;
        *value = NULL;
        return WB_OK;
    }
    if (idx < cur->n) {
        *next = cur->items[idx];
        return WB_OK;
    }
    WbNode *val = *value ? *value : wb_node_new(WB_NODE_MAP, src, 1, col);
    if (!val || !wb_node_append(cur, NULL, val)) {
        if (val != *value)
            wb_node_free(val);
        return wb_error_set(err, WB_E_IO, "out of memory");
    }
    if (*value)
        *value = NULL;
    else
        *next = val;
    return WB_OK;
}

WbStatus wb_node_override(WbNode **root, const WbSource *src, WbError *err)
{
    const char *text = src->text;
    const char *eq = strchr(text, '=');
    if (!eq || eq == text)
        return wb_source_error(err, src, 1, 1, "expected key.path=value, found '%s'", text);
    size_t klen = (size_t)(eq - text);
    if (klen >= 256)
        return wb_source_error(err, src, 1, 1, "key path too long");

    WbNode *value = NULL;
    WbStatus st = override_value(src, klen + 1, &value, err);
    if (st)
        return st;
    if (!*root && !(*root = wb_node_new(WB_NODE_MAP, src, 1, 1))) {
        wb_node_free(value);
        return wb_error_set(err, WB_E_IO, "out of memory");
    }

    char where[256];   /* the key path walked so far, for messages */
    WbNode *cur = *root;
    size_t start = 0;
    while (value) {
        size_t len = strcspn(text + start, ".=");
        bool last = start + len >= klen;
        char seg[256];
        memcpy(seg, text + start, len);
        seg[len] = '\0';
        int col = (int)start + 1;
        memcpy(where, text, start ? start - 1 : 0);
        where[start ? start - 1 : 0] = '\0';
        if (!seg[0]) {
            st = wb_source_error(err, src, 1, col, "empty key in '%.*s'", (int)klen, text);
            break;
        }
        if (wb_node_is_null(cur)) {
            /* `photo:` with nothing under it becomes the map being set. */
            cur->kind = WB_NODE_MAP;
            free(cur->text);
            cur->text = NULL;
        }
        WbNode *next = NULL, *v = last ? value : NULL;
        if (src->option && cur->kind != WB_NODE_MAP) {
            /* An option's key under a value or a list (`output: 5` and
             * --size): the place to show is that value's, in the scene or
             * the --set that gave it. */
            char found[128];
            wb_node_describe(cur, found, sizeof found);
            st = wb_node_error(err, cur, "'%s' expects a mapping (%s sets '%.*s'), found %s", where,
                               src->option, (int)klen, text, found);
            break;
        }
        if (cur->kind == WB_NODE_MAP)
            st = override_in_map(cur, src, seg, col, &v, &next, err);
        else if (cur->kind == WB_NODE_SEQ)
            st = override_in_seq(cur, src, seg, col, where, &v, &next, err);
        else
            st = wb_source_error(err, src, 1, col,
                                 "'%s' holds a value, not a mapping; cannot set '%.*s'", where,
                                 (int)klen, text);
        if (st)
            break;
        if (last) {
            value = NULL;
            break;
        }
        cur = next;
        start += len + 1;
    }
    wb_node_free(value);
    return st;
}

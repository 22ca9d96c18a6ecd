/* schema.c — the table-driven binder, printer and key lister (see schema.h).
 *
 * Error messages name the key by its dotted path ('photo.bounce'), say what
 * was expected and quote what was found, at the node's file:line:col.
 */
#include "scene/schema.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene.h"

/* Pixel values: anything a sane image could need, nothing that overflows. */
#define PX_MAX 1e6

#define AT(base, off, T) ((T *)(void *)((char *)(base) + (off)))
#define CAT(base, off, T) ((const T *)(const void *)((const char *)(base) + (off)))

/* LIST arrays are typed pointers (WbKey *, ...) in the structs; they are
 * moved as bytes so no lvalue of the wrong pointer type touches them. */
static void *list_get(const void *base, size_t off)
{
    void *p;
    memcpy(&p, (const char *)base + off, sizeof p);
    return p;
}

static void list_set(void *base, size_t off, void *p)
{
    memcpy((char *)base + off, &p, sizeof p);
}

/* ---------------------------------------------------------------- helpers */

/* Paths longer than the buffer are cut; they only ever appear in messages. */
__attribute__((format(printf, 3, 4)))
static void fmt_into(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

void wb_schema_field_name(const WbBind *b, const char *key, char *buf, size_t size)
{
    if (b->path[0])
        fmt_into(buf, size, "'%s.%s'", b->path, key);
    else
        snprintf(buf, size, "'%s'", key);
}

int wb_schema_distance(const char *a, const char *b)
{
    enum { N = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= N || lb >= N)
        return 99;
    /* d[i][j]: distance between the first i bytes of a and first j of b. */
    int d[N][N];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[la][lb];
}

const char *wb_schema_suggest(const char *word, const char *const *candidates)
{
    const char *best = NULL;
    int best_d = 3;
    for (size_t i = 0; candidates[i]; i++) {
        int d = wb_schema_distance(word, candidates[i]);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    if (best)
        return best;
    size_t lw = strlen(word);
    if (lw < 2)
        return NULL;
    for (size_t i = 0; candidates[i]; i++)
        if (strncmp(word, candidates[i], lw) == 0)
            return candidates[i];
    return NULL;
}

/* A plain decimal number: [+-] digits [. digits] [e [+-] digits], at least
 * one digit in the mantissa.  Rejects hex, inf/nan and YAML's `.inf`, which
 * strtod alone would accept. */
static bool parse_decimal(const char *s, double *out)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    int digits = 0;
    while (isdigit((unsigned char)*p)) {
        p++;
        digits++;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            p++;
            digits++;
        }
    }
    if (!digits)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p)
        return false;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (*end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* "40px" → 40 (a plain decimal followed by px). */
static bool parse_px(const char *s, double *out)
{
    size_t n = strlen(s);
    if (n < 3 || strcmp(s + n - 2, "px") != 0 || n - 2 >= 64)
        return false;
    char num[64];
    memcpy(num, s, n - 2);
    num[n - 2] = '\0';
    return parse_decimal(num, out);
}

static void format_range(const WbField *f, char *buf, size_t size, const char *unit)
{
    snprintf(buf, size, "%c%.10g%s, %.10g%s%c", (f->flags & WB_FIELD_MIN_OPEN) ? '(' : '[',
             f->min, unit, f->max, unit, (f->flags & WB_FIELD_MAX_OPEN) ? ')' : ']');
}

static bool in_range(const WbField *f, double v)
{
    if ((f->flags & WB_FIELD_MIN_OPEN) ? !(v > f->min) : !(v >= f->min))
        return false;
    if ((f->flags & WB_FIELD_MAX_OPEN) ? !(v < f->max) : !(v <= f->max))
        return false;
    return true;
}

static WbStatus expected(const WbField *f, const WbNode *v, WbBind *b, const char *what)
{
    char name[300], found[128];
    wb_schema_field_name(b, f->key, name, sizeof name);
    wb_node_describe(v, found, sizeof found);
    return wb_node_error(b->err, v, "%s expects %s, found %s", name, what, found);
}

static WbStatus out_of_range(const WbField *f, const WbNode *v, WbBind *b, const char *axis,
                             const char *unit)
{
    char name[300], range[128];
    wb_schema_field_name(b, f->key, name, sizeof name);
    format_range(f, range, sizeof range, unit);
    return wb_node_error(b->err, v, "%s%s must be in %s, found %s", name, axis, range, v->text);
}

/* A plain (unquoted) number scalar. */
static bool scalar_number(const WbNode *v, double *out)
{
    return v->kind == WB_NODE_SCALAR && !v->quoted && parse_decimal(v->text, out);
}

/* ------------------------------------------------------------ bind types */

static WbStatus bind_number(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    double x;
    const char *what = f->type == WB_FIELD_NUMBER ? "a number" : "a whole number";
    if (!scalar_number(v, &x))
        return expected(f, v, b, what);
    if (f->type != WB_FIELD_NUMBER && x != floor(x))
        return expected(f, v, b, what);
    if (!in_range(f, x))
        return out_of_range(f, v, b, "", "");
    if (f->type == WB_FIELD_NUMBER)
        *AT(base, f->offset, double) = x;
    else if (f->type == WB_FIELD_INT)
        *AT(base, f->offset, int) = (int)x;
    else
        *AT(base, f->offset, uint32_t) = (uint32_t)x;
    return WB_OK;
}

static WbStatus bind_bool(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    static const char *const t[] = {"true", "True", "TRUE", NULL};
    static const char *const fl[] = {"false", "False", "FALSE", NULL};
    if (v->kind == WB_NODE_SCALAR && !v->quoted) {
        for (int i = 0; t[i]; i++) {
            if (!strcmp(v->text, t[i])) {
                *AT(base, f->offset, bool) = true;
                return WB_OK;
            }
            if (!strcmp(v->text, fl[i])) {
                *AT(base, f->offset, bool) = false;
                return WB_OK;
            }
        }
    }
    return expected(f, v, b, "true or false");
}

static WbStatus bind_string(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    if (v->kind != WB_NODE_SCALAR)
        return expected(f, v, b, f->type == WB_FIELD_PATH ? "a file path" : "a string");
    char *dst = AT(base, f->offset, char);
    const char *text = wb_node_is_null(v) ? "" : v->text;
    char name[300];
    wb_schema_field_name(b, f->key, name, sizeof name);
    if (strlen(text) != strcspn(text, "\n\r"))
        return wb_node_error(b->err, v, "%s must be one line", name);
    /* Paths are relative to the scene file's folder, except those typed on
     * the command line (--set), which are relative to where the user is,
     * and "-" (standard input). */
    const char *dir = "";
    if (f->type == WB_FIELD_PATH && text[0] && text[0] != '/' && strcmp(text, "-") != 0 &&
        !v->src->is_set)
        dir = b->dir;
    const char *sep = dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "";
    size_t need = strlen(dir) + strlen(sep) + strlen(text);
    if (need >= f->aux)
        return wb_node_error(b->err, v, "%s is too long (at most %zu bytes)", name, f->aux - 1);
    snprintf(dst, f->aux, "%s%s%s", dir, sep, text);
    return WB_OK;
}

static void join_names(const char *const *names, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; names[i]; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, size - l, "%s%s", i ? " | " : "", names[i]);
    }
}

static WbStatus bind_enum(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    if (v->kind == WB_NODE_SCALAR) {
        for (int i = 0; f->names[i]; i++) {
            if (!strcmp(v->text, f->names[i])) {
                *AT(base, f->offset, int) = i;
                return WB_OK;
            }
        }
    }
    char name[300], list[256], found[128];
    wb_schema_field_name(b, f->key, name, sizeof name);
    join_names(f->names, list, sizeof list);
    wb_node_describe(v, found, sizeof found);
    const char *s = v->kind == WB_NODE_SCALAR && !wb_node_is_null(v)
                        ? wb_schema_suggest(v->text, f->names) : NULL;
    if (s)
        return wb_node_error(b->err, v, "%s expects %s, found %s (did you mean '%s'?)", name,
                             list, found, s);
    return wb_node_error(b->err, v, "%s expects %s, found %s", name, list, found);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static WbStatus bind_color(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    WbColor *c = AT(base, f->offset, WbColor);
    bool transparent_ok = f->flags & WB_FIELD_TRANSPARENT;
    const char *what = transparent_ok
        ? "a colour (\"#rrggbb\", \"#rrggbbaa\", [r, g, b], [r, g, b, a] or transparent)"
        : "a colour (\"#rrggbb\", \"#rrggbbaa\", [r, g, b] or [r, g, b, a])";
    if (v->kind == WB_NODE_SCALAR) {
        const char *t = v->text;
        size_t n = strlen(t);
        if (transparent_ok && !strcmp(t, "transparent")) {
            *c = (WbColor){0, 0, 0, 0};
            *AT(base, f->aux, bool) = true;
            return WB_OK;
        }
        if (t[0] == '#' && (n == 7 || n == 9)) {
            double ch[4] = {0, 0, 0, 1};
            bool ok = true;
            for (size_t i = 0; i < (n - 1) / 2; i++) {
                int hi = hexval(t[1 + 2 * i]), lo = hexval(t[2 + 2 * i]);
                if (hi < 0 || lo < 0)
                    ok = false;
                else
                    ch[i] = (hi * 16 + lo) / 255.0;
            }
            if (ok) {
                *c = (WbColor){ch[0], ch[1], ch[2], ch[3]};
                if (transparent_ok)
                    *AT(base, f->aux, bool) = false;
                return WB_OK;
            }
        }
        if (wb_node_is_null(v)) {
            char name[300];
            wb_schema_field_name(b, f->key, name, sizeof name);
            return wb_node_error(b->err, v,
                                 "%s expects %s, found nothing (a '#' after a space starts a "
                                 "YAML comment: quote the colour)", name, what);
        }
        return expected(f, v, b, what);
    }
    if (v->kind != WB_NODE_SEQ || (v->n != 3 && v->n != 4))
        return expected(f, v, b, what);
    double ch[4] = {0, 0, 0, 1};
    for (size_t i = 0; i < v->n; i++) {
        const WbNode *e = v->items[i];
        if (!scalar_number(e, &ch[i]))
            return expected(f, e, b, "a colour channel in [0, 1]");
        if (ch[i] < 0 || ch[i] > 1) {
            char name[300];
            wb_schema_field_name(b, f->key, name, sizeof name);
            return wb_node_error(b->err, e, "%s channels must be in [0, 1], found %s", name, e->text);
        }
    }
    *c = (WbColor){ch[0], ch[1], ch[2], ch[3]};
    if (transparent_ok)
        *AT(base, f->aux, bool) = false;
    return WB_OK;
}

static WbStatus bind_len(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    WbLen *len = AT(base, f->offset, WbLen);
    const char *what = "a length (a fraction of the shorter edge like 0.2, pixels like "
                       "40px, or auto)";
    if (v->kind != WB_NODE_SCALAR)
        return expected(f, v, b, what);
    double x;
    if (!strcmp(v->text, "auto")) {
        *len = (WbLen){0, false, true};
        return WB_OK;
    }
    if (parse_px(v->text, &x)) {
        if (!(x > 0 && x <= PX_MAX)) {
            char name[300];
            wb_schema_field_name(b, f->key, name, sizeof name);
            return wb_node_error(b->err, v, "%s must be in (0px, %.10gpx], found %s", name, PX_MAX,
                                 v->text);
        }
        *len = (WbLen){x, true, false};
        return WB_OK;
    }
    if (!scalar_number(v, &x))
        return expected(f, v, b, what);
    if (!in_range(f, x))
        return out_of_range(f, v, b, "", "");
    *len = (WbLen){x, false, false};
    return WB_OK;
}

/* What a point and one of its coordinates should look like, for errors.  A
 * point field with its own type name is in world units (jiggle: "point [x,
 * y] in world units", rope: "... in metres") and is described by that name;
 * one without is a photo point, image-normalized or in pixels. */
static void point_words(const WbField *f, char *what, size_t what_size, char *coord,
                        size_t coord_size)
{
    if (f->type_name) {
        const char *in = strstr(f->type_name, " in ");
        fmt_into(what, what_size, "a %s", f->type_name);
        fmt_into(coord, coord_size, "a number%s", in ? in : "");
    } else {
        fmt_into(what, what_size,
                 "a point [x, y] (0..1 across the image, or pixels like [312px, 80px])");
        fmt_into(coord, coord_size, "a coordinate (0..1 or pixels like 312px)");
    }
}

static WbStatus bind_point(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    char what[160], coord[96];
    point_words(f, what, sizeof what, coord, sizeof coord);
    if (v->kind != WB_NODE_SEQ || v->n != 2)
        return expected(f, v, b, what);
    double xy[2];
    bool px[2];
    for (int i = 0; i < 2; i++) {
        const WbNode *e = v->items[i];
        const char *axis = i ? " y" : " x";
        if (e->kind == WB_NODE_SCALAR && parse_px(e->text, &xy[i])) {
            px[i] = true;
            /* Only the run step knows the image size, so pixels get the sign
             * rule of the normalized range and a sanity bound here. */
            if (xy[i] < (f->min < 0 ? -PX_MAX : 0) || xy[i] > PX_MAX) {
                char name[300];
                wb_schema_field_name(b, f->key, name, sizeof name);
                return wb_node_error(b->err, e, "%s%s must be in [%.10gpx, %.10gpx], found %s", name,
                                     axis, f->min < 0 ? -PX_MAX : 0.0, PX_MAX, e->text);
            }
            continue;
        }
        px[i] = false;
        if (!scalar_number(e, &xy[i]))
            return expected(f, e, b, coord);
        if (!in_range(f, xy[i]))
            return out_of_range(f, e, b, axis, "");
    }
    *AT(base, f->offset, WbPoint) = (WbPoint){xy[0], xy[1], px[0], px[1]};
    return WB_OK;
}

static WbStatus bind_list(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    if (wb_node_is_null(v)) {
        free(list_get(base, f->offset));
        list_set(base, f->offset, NULL);
        *AT(base, f->aux, size_t) = 0;
        return WB_OK;
    }
    if (v->kind != WB_NODE_SEQ)
        return expected(f, v, b, "a list");
    const WbSchema *s = f->sub;
    char *items = v->n ? calloc(v->n, s->elem_size) : NULL;
    if (v->n && !items)
        return wb_error_set(b->err, WB_E_IO, "out of memory");
    /* The old list (defaults) is replaced only once the new one bound. */
    char saved[sizeof b->path];
    memcpy(saved, b->path, sizeof saved);
    const WbNode *outer = b->key;
    b->key = NULL;   /* a missing key of an item is reported at the item */
    WbStatus st = WB_OK;
    for (size_t i = 0; i < v->n && !st; i++) {
        void *elem = items + i * s->elem_size;
        if (s->init)
            s->init(elem);
        if (saved[0])
            fmt_into(b->path, sizeof b->path, "%s.%s[%zu]", saved, f->key, i);
        else
            fmt_into(b->path, sizeof b->path, "%s[%zu]", f->key, i);
        if (v->items[i]->kind != WB_NODE_MAP) {
            char found[128];
            wb_node_describe(v->items[i], found, sizeof found);
            st = wb_node_error(b->err, v->items[i], "'%s' expects a mapping, found %s", b->path,
                               found);
            break;
        }
        st = wb_schema_bind(s, v->items[i], elem, b);
    }
    memcpy(b->path, saved, sizeof saved);
    b->key = outer;
    if (st) {
        free(items);
        return st;
    }
    free(list_get(base, f->offset));
    list_set(base, f->offset, items);
    *AT(base, f->aux, size_t) = v->n;
    return WB_OK;
}

static WbStatus bind_block(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    /* An optional block given as null (`segment: ~`, `--set photo.segment=`)
     * is switched off. */
    if ((f->flags & WB_FIELD_PRESENCE) && wb_node_is_null(v)) {
        *AT(base, f->aux, bool) = false;
        return WB_OK;
    }
    if (!wb_node_is_null(v) && v->kind != WB_NODE_MAP)
        return expected(f, v, b, "a mapping");
    char saved[sizeof b->path];
    memcpy(saved, b->path, sizeof saved);
    if (saved[0])
        fmt_into(b->path, sizeof b->path, "%s.%s", saved, f->key);
    else
        fmt_into(b->path, sizeof b->path, "%s", f->key);
    WbStatus st = wb_schema_bind(f->sub, v, AT(base, f->offset, void), b);
    memcpy(b->path, saved, sizeof saved);
    if (!st && (f->flags & WB_FIELD_PRESENCE))
        *AT(base, f->aux, bool) = true;
    return st;
}

WbStatus wb_schema_bind_field(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    WbStatus st;
    switch (f->type) {
    case WB_FIELD_NUMBER:
    case WB_FIELD_INT:
    case WB_FIELD_U32: st = bind_number(f, v, base, b); break;
    case WB_FIELD_BOOL: st = bind_bool(f, v, base, b); break;
    case WB_FIELD_STRING:
    case WB_FIELD_PATH: st = bind_string(f, v, base, b); break;
    case WB_FIELD_ENUM: st = bind_enum(f, v, base, b); break;
    case WB_FIELD_COLOR: st = bind_color(f, v, base, b); break;
    case WB_FIELD_LEN: st = bind_len(f, v, base, b); break;
    case WB_FIELD_POINT: st = bind_point(f, v, base, b); break;
    case WB_FIELD_BLOCK: st = bind_block(f, v, base, b); break;
    case WB_FIELD_LIST: st = bind_list(f, v, base, b); break;
    case WB_FIELD_CUSTOM: st = f->bind(f, v, base, b); break;
    default: st = wb_node_error(b->err, v, "internal: unknown field type"); break;
    }
    if (!st && f->after)
        st = f->after(base, v, b);
    return st;
}

static const WbField *find_field(const WbSchema *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->fields[i].key, key))
            return &s->fields[i];
    return NULL;
}

static WbStatus unknown_key(const WbSchema *s, const WbNode *key, WbBind *b)
{
    const char *names[128];
    size_t n = 0;
    for (size_t i = 0; i < s->n && n + 1 < sizeof names / sizeof names[0]; i++)
        names[n++] = s->fields[i].key;
    names[n] = NULL;
    char where[300];
    if (b->path[0])
        fmt_into(where, sizeof where, "in '%s'", b->path);
    else
        snprintf(where, sizeof where, "at the top level");
    const char *sug = wb_schema_suggest(key->text, names);
    if (sug)
        return wb_node_error(b->err, key, "unknown key '%s' %s (did you mean '%s'?)", key->text,
                             where, sug);
    return wb_node_error(b->err, key, "unknown key '%s' %s", key->text, where);
}

WbStatus wb_schema_bind(const WbSchema *s, const WbNode *map, void *base, WbBind *b)
{
    size_t n = map && map->kind == WB_NODE_MAP ? map->n : 0;
    /* Unknown and duplicate keys first, in file order. */
    for (size_t i = 0; i < n; i++) {
        const WbNode *k = map->keys[i];
        for (size_t j = 0; j < i; j++) {
            if (!strcmp(map->keys[j]->text, k->text)) {
                char name[300];
                wb_schema_field_name(b, k->text, name, sizeof name);
                if (map->keys[j]->src == k->src)
                    return wb_node_error(b->err, k, "duplicate key %s (first given at line %d)",
                                         name, map->keys[j]->line);
                return wb_node_error(b->err, k, "duplicate key %s", name);
            }
        }
        if (!find_field(s, k->text))
            return unknown_key(s, k, b);
    }
    /* Early keys (a version, a kind, a preset) decide how the rest reads. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            const WbField *f = find_field(s, map->keys[i]->text);
            if (!!(f->flags & WB_FIELD_EARLY) != (pass == 0))
                continue;
            const WbNode *outer = b->key;
            b->key = map->keys[i];
            WbStatus st = wb_schema_bind_field(f, map->items[i], base, b);
            b->key = outer;
            if (st)
                return st;
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        const WbField *f = &s->fields[i];
        if (!(f->flags & WB_FIELD_REQUIRED) || wb_node_get(map, f->key, NULL))
            continue;
        char where[300];
        if (b->path[0])
            fmt_into(where, sizeof where, " in '%s'", b->path);
        else
            where[0] = '\0';
        /* At the key that opened this block (`photo:`), else the block. */
        const WbNode *at = b->key ? b->key : map;
        if (at)
            return wb_node_error(b->err, at, "missing required key '%s'%s", f->key, where);
        return wb_error_set(b->err, WB_E_INPUT, "missing required key '%s'%s", f->key, where);
    }
    return s->check ? s->check(base, map, b) : WB_OK;
}

/* ---------------------------------------------------------------- print */

void wb_schema_print_number(FILE *out, double v)
{
    char buf[64];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, out);
}

void wb_schema_print_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void print_coord(FILE *out, double v, bool px)
{
    wb_schema_print_number(out, v);
    if (px)
        fputs("px", out);
}

static void print_color(FILE *out, WbColor c)
{
    double ch[4] = {c.r, c.g, c.b, c.a};
    bool bytes = true;
    for (int i = 0; i < 4; i++)
        if (ch[i] < 0 || ch[i] > 1 || round(ch[i] * 255.0) / 255.0 != ch[i])
            bytes = false;
    if (bytes) {
        fputc('"', out);
        fputc('#', out);
        for (int i = 0; i < (c.a == 1 ? 3 : 4); i++)
            fprintf(out, "%02x", (unsigned)round(ch[i] * 255.0));
        fputc('"', out);
        return;
    }
    fputc('[', out);
    for (int i = 0; i < 4; i++) {
        if (i)
            fputs(", ", out);
        wb_schema_print_number(out, ch[i]);
    }
    fputc(']', out);
}

void wb_schema_print_value(const WbField *f, const void *base, FILE *out)
{
    switch (f->type) {
    case WB_FIELD_NUMBER: wb_schema_print_number(out, *CAT(base, f->offset, double)); break;
    case WB_FIELD_INT: fprintf(out, "%d", *CAT(base, f->offset, int)); break;
    case WB_FIELD_U32: fprintf(out, "%u", (unsigned)*CAT(base, f->offset, uint32_t)); break;
    case WB_FIELD_BOOL: fputs(*CAT(base, f->offset, bool) ? "true" : "false", out); break;
    case WB_FIELD_STRING:
    case WB_FIELD_PATH: wb_schema_print_string(out, CAT(base, f->offset, char)); break;
    case WB_FIELD_ENUM: fputs(f->names[*CAT(base, f->offset, int)], out); break;
    case WB_FIELD_COLOR:
        if ((f->flags & WB_FIELD_TRANSPARENT) && *CAT(base, f->aux, bool))
            fputs("transparent", out);
        else
            print_color(out, *CAT(base, f->offset, WbColor));
        break;
    case WB_FIELD_LEN: {
        WbLen l = *CAT(base, f->offset, WbLen);
        if (l.automatic)
            fputs("auto", out);
        else
            print_coord(out, l.value, l.px);
        break;
    }
    case WB_FIELD_POINT: {
        WbPoint p = *CAT(base, f->offset, WbPoint);
        fputc('[', out);
        print_coord(out, p.x, p.px_x);
        fputs(", ", out);
        print_coord(out, p.y, p.px_y);
        fputc(']', out);
        break;
    }
    case WB_FIELD_BLOCK: wb_schema_print(f->sub, CAT(base, f->offset, void), out, 0, true); break;
    case WB_FIELD_LIST: {
        const char *items = list_get(base, f->offset);
        size_t n = *CAT(base, f->aux, size_t);
        fputc('[', out);
        for (size_t i = 0; i < n; i++) {
            if (i)
                fputs(", ", out);
            wb_schema_print(f->sub, items + i * f->sub->elem_size, out, 0, true);
        }
        fputc(']', out);
        break;
    }
    case WB_FIELD_CUSTOM: f->print(f, base, out, -1); break;
    }
}

static bool printed(const WbField *f, const void *base)
{
    if (f->shown && !f->shown(base))
        return false;
    return !(f->type == WB_FIELD_BLOCK && (f->flags & WB_FIELD_PRESENCE) &&
             !*CAT(base, f->aux, bool));
}

void wb_schema_print(const WbSchema *s, const void *base, FILE *out, int indent, bool flow)
{
    if (flow)
        fputc('{', out);
    bool first = true;
    for (size_t i = 0; i < s->n; i++) {
        const WbField *f = &s->fields[i];
        if (!printed(f, base))
            continue;
        if (flow) {
            fprintf(out, "%s%s: ", first ? "" : ", ", f->key);
            wb_schema_print_value(f, base, out);
            first = false;
            continue;
        }
        bool implied = s->implied && s->implied(base, f);
        fprintf(out, "%*s%s%s:", indent, "", implied ? "# " : "", f->key);
        if (f->type == WB_FIELD_BLOCK && indent == 0) {
            fputc('\n', out);
            wb_schema_print(f->sub, CAT(base, f->offset, void), out, indent + 2, false);
        } else if (f->type == WB_FIELD_CUSTOM) {
            f->print(f, base, out, indent);
        } else {
            fputc(' ', out);
            wb_schema_print_value(f, base, out);
            if (implied)
                fputs("  (set by the preset)", out);
            fputc('\n', out);
        }
    }
    if (flow)
        fputc('}', out);
}

/* ----------------------------------------------------------------- keys */

static void type_name(const WbField *f, char *buf, size_t size)
{
    char range[128];
    if (f->type_name) {
        snprintf(buf, size, "%s", f->type_name);
        return;
    }
    switch (f->type) {
    case WB_FIELD_NUMBER:
        format_range(f, range, sizeof range, "");
        snprintf(buf, size, "number in %s", range);
        break;
    case WB_FIELD_INT:
    case WB_FIELD_U32:
        format_range(f, range, sizeof range, "");
        snprintf(buf, size, "integer in %s", range);
        break;
    case WB_FIELD_BOOL: snprintf(buf, size, "true | false"); break;
    case WB_FIELD_STRING: snprintf(buf, size, "string"); break;
    case WB_FIELD_PATH: snprintf(buf, size, "path"); break;
    case WB_FIELD_ENUM: join_names(f->names, buf, size); break;
    case WB_FIELD_COLOR:
        snprintf(buf, size, "%s", (f->flags & WB_FIELD_TRANSPARENT) ? "colour | transparent"
                                                                     : "colour");
        break;
    case WB_FIELD_LEN:
        format_range(f, range, sizeof range, "");
        snprintf(buf, size, "length: fraction in %s | Npx | auto", range);
        break;
    case WB_FIELD_POINT:
        format_range(f, range, sizeof range, "");
        snprintf(buf, size, "point [x, y], each in %s or Npx", range);
        break;
    case WB_FIELD_BLOCK: snprintf(buf, size, "mapping"); break;
    case WB_FIELD_LIST: snprintf(buf, size, "list of mappings"); break;
    case WB_FIELD_CUSTOM: snprintf(buf, size, "list"); break;
    }
}

void wb_schema_keys(const WbSchema *s, const char *prefix, WbKeyFn fn, void *ud)
{
    for (size_t i = 0; i < s->n; i++) {
        const WbField *f = &s->fields[i];
        char path[256], type[256];
        fmt_into(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", f->key);
        type_name(f, type, sizeof type);
        const char *def = (f->flags & WB_FIELD_REQUIRED) ? "required" : f->def ? f->def : "";
        fn(path, type, def, f->doc ? f->doc : "", ud);
        if (f->type == WB_FIELD_BLOCK) {
            wb_schema_keys(f->sub, path, fn, ud);
        } else if (f->type == WB_FIELD_LIST) {
            char sub[300];
            fmt_into(sub, sizeof sub, "%s[]", path);
            wb_schema_keys(f->sub, sub, fn, ud);
        } else if (f->type == WB_FIELD_CUSTOM && f->keys) {
            f->keys(f, path, fn, ud);
        }
    }
}

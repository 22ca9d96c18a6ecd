/* schema.h — binding YAML node trees to C structs through tables.
 *
 * Every scene struct is described once, by a WbSchema: one WbField row per
 * key with its type, where it lives (offsetof), its range, enum names, the
 * default as written in a scene, and a one-line doc.  The same table drives
 * three things, so they cannot drift apart:
 *   - binding (wb_schema_bind): type checks, ranges, unknown and duplicate
 *     keys with "did you mean", required keys, file:line:col on every error;
 *   - printing (wb_schema_print): the effective values as loadable YAML;
 *   - documentation (wb_schema_keys): every key path with type, default, doc.
 * A new scene kind is a new table, not new binding code.  Types the table
 * cannot express (the timeline's "time + one action" events) plug in through
 * the WB_FIELD_CUSTOM hooks.
 */
#ifndef WB_SCHEMA_H
#define WB_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "scene/node.h"

typedef enum WbFieldType {
    WB_FIELD_NUMBER,  /* double in [min, max] (see the OPEN flags) */
    WB_FIELD_INT,     /* int in [min, max]; whole numbers only */
    WB_FIELD_U32,     /* uint32_t in [min, max] */
    WB_FIELD_BOOL,    /* bool: true | false */
    WB_FIELD_STRING,  /* char[aux]; null = "" */
    WB_FIELD_PATH,    /* char[aux], resolved against the scene's folder */
    WB_FIELD_ENUM,    /* int (a C enum); names[i] is value i */
    WB_FIELD_COLOR,   /* WbColor; with WB_FIELD_TRANSPARENT, `transparent` sets the bool at aux */
    WB_FIELD_LEN,     /* WbLen: fraction in [min, max], `Npx` or `auto` */
    WB_FIELD_POINT,   /* WbPoint: each normalized axis in [min, max], or `Npx` */
    WB_FIELD_BLOCK,   /* a nested struct bound by `sub`; with WB_FIELD_PRESENCE the bool
                         at aux says whether it was given (null = not given) */
    WB_FIELD_LIST,    /* T *items at offset, size_t count at aux; elements bound by `sub` */
    WB_FIELD_CUSTOM   /* bound, printed and documented by the hooks below */
} WbFieldType;

enum {
    WB_FIELD_REQUIRED = 1u << 0,  /* missing key is an error */
    WB_FIELD_EARLY = 1u << 1,     /* bound before the other keys of its map */
    WB_FIELD_MIN_OPEN = 1u << 2,  /* range excludes min */
    WB_FIELD_MAX_OPEN = 1u << 3,  /* range excludes max */
    WB_FIELD_TRANSPARENT = 1u << 4,
    WB_FIELD_PRESENCE = 1u << 5
};

typedef struct WbBind WbBind;
typedef struct WbField WbField;
typedef struct WbSchema WbSchema;

/* Callback of wb_schema_keys / wb_scene_keys: one documented key. */
typedef void (*WbKeyFn)(const char *path, const char *type, const char *def,
                        const char *doc, void *ud);

struct WbField {
    const char *key;
    WbFieldType type;
    unsigned flags;
    size_t offset;             /* the value inside the bound struct */
    size_t aux;                /* string capacity, presence/transparent bool, list count */
    double min, max;
    const char *const *names;  /* ENUM names, NULL-terminated */
    const WbSchema *sub;       /* BLOCK struct / LIST element */
    /* Called after the value was stored (e.g. a preset filling other fields,
     * a version check); may fail with an error at `value`. */
    WbStatus (*after)(void *base, const WbNode *value, WbBind *b);
    /* WB_FIELD_CUSTOM hooks. */
    WbStatus (*bind)(const WbField *f, const WbNode *value, void *base, WbBind *b);
    void (*print)(const WbField *f, const void *base, FILE *out, int indent);
    void (*keys)(const WbField *f, const char *path, WbKeyFn fn, void *ud);
    /* Printing: false when the field is not part of this scene (a block of
     * another kind); NULL = always printed. */
    bool (*shown)(const void *base);
    const char *type_name;     /* overrides the generated type description */
    const char *def;           /* the default, as written in a scene ("" = none) */
    const char *doc;           /* one line */
};

struct WbSchema {
    const WbField *fields;
    size_t n;
    size_t elem_size;                      /* LIST elements */
    void (*init)(void *elem);              /* LIST element (or timeline event) defaults */
    /* After every key of a map was bound: cross-field rules. */
    WbStatus (*check)(void *base, const WbNode *map, WbBind *b);
    /* Printing: true when the field's value is implied by another key (a
     * preset) and is printed as a comment so reloading gives the same. */
    bool (*implied)(const void *base, const WbField *f);
};

struct WbBind {
    WbError *err;
    const char *dir;   /* folder of the scene file, "" for the current one */
    char path[256];    /* dotted path of the map being bound ("" at the top) */
    const WbNode *key; /* the key whose value is being bound (NULL in lists and
                          at the top): where a missing key is reported */
};

/* Bind every key of `map` (a mapping, or null = empty) into base.  Fields
 * absent from the map keep what base already holds (the defaults). */
WbStatus wb_schema_bind(const WbSchema *s, const WbNode *map, void *base, WbBind *b);

/* Bind one field's value (the type checks of the table). */
WbStatus wb_schema_bind_field(const WbField *f, const WbNode *value, void *base, WbBind *b);

/* "'photo.bounce'" style name of field `key` under the current b->path. */
void wb_schema_field_name(const WbBind *b, const char *key, char *buf, size_t size);

/* Print the fields of base, one `key: value` line each at `indent` spaces
 * (block style), or as `{key: value, ...}` when flow is true. */
void wb_schema_print(const WbSchema *s, const void *base, FILE *out, int indent, bool flow);

/* Print one field's value (no key) in flow style. */
void wb_schema_print_value(const WbField *f, const void *base, FILE *out);

/* Call fn for every key of s, paths prefixed by `prefix` ("" or "a.b");
 * the default of a required key is given as "required". */
void wb_schema_keys(const WbSchema *s, const char *prefix, WbKeyFn fn, void *ud);

/* The closest of `candidates` (NULL-terminated) to `word` for a "did you
 * mean" hint: Damerau–Levenshtein distance <= 2, else a candidate that
 * `word` is a prefix of (at least 2 characters); NULL when none is close. */
const char *wb_schema_suggest(const char *word, const char *const *candidates);

/* Optimal-string-alignment distance (Damerau–Levenshtein with adjacent
 * transpositions), bytes; words longer than 63 bytes count as far. */
int wb_schema_distance(const char *a, const char *b);

/* Print a double so that strtod reads back the same value. */
void wb_schema_print_number(FILE *out, double v);

/* Print s as a double-quoted YAML string. */
void wb_schema_print_string(FILE *out, const char *s);

#endif

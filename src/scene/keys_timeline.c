/* keys_timeline.c — the timeline: a list of events {time, ACTION: {...}}
 * with exactly one action each, stored by time, and keyframe lists
 * {time, to, ease}.
 *
 * Each kind has its own actions (the table below; their keys are in
 * keys_KIND.c).  No plain table can express "time + one of these keys", so
 * the timeline binds, prints and documents itself through the document's
 * WB_FIELD_CUSTOM hooks.  Rules over the whole timeline (one grab at a
 * time, pin names) are checked here in time order; rules that also need a
 * kind's block (a rope's links, a cloth's pins) in keys_KIND.c.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/keys.h"

/* WB_FIELD_ENUM stores through an int lvalue (see keys_scene.c). */
_Static_assert(sizeof(WbEase) == sizeof(int), "enum size");

const char *const wb_keys_ease_names[] = {"linear", "in", "out", "in-out", "step", NULL};

/* ---- keyframes ---- */

void wb_keys_key_init(void *key)
{
    WbKey *k = key;
    *k = (WbKey){.ease = WB_EASE_IN_OUT};
}

/* A WbKeyList field (rope start_path / end_path, jiggle drive.path /
 * drive.accel): keys bound by the field's `sub` schema into a fixed array.
 * Photo grab paths are a plain WB_FIELD_LIST (keys_photo.c). */
WbStatus wb_keys_key_list_bind(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    WbKeyList *p = RAT(base, f->offset, WbKeyList);
    char name[300];
    wb_schema_field_name(b, f->key, name, sizeof name);
    if (wb_node_is_null(v)) {
        p->n = 0;
        return WB_OK;
    }
    if (v->kind != WB_NODE_SEQ) {
        char found[128];
        wb_node_describe(v, found, sizeof found);
        return wb_node_error(b->err, v, "%s expects a list of keys {time, to, ease}, found %s",
                             name, found);
    }
    if (v->n > WB_SCENE_MAX_KEYS)
        return wb_node_error(b->err, v, "%s has %zu keys; at most %d", name, v->n,
                             WB_SCENE_MAX_KEYS);
    WbKeyList tmp = {.n = (int)v->n};
    char saved[sizeof b->path];
    memcpy(saved, b->path, sizeof saved);
    const WbNode *outer = b->key;
    b->key = NULL;
    WbStatus st = WB_OK;
    for (size_t i = 0; i < v->n && !st; i++) {
        wb_keys_key_init(&tmp.keys[i]);
        snprintf(b->path, sizeof b->path, "%.200s.%s[%zu]", saved, f->key, i);
        const WbNode *item = v->items[i];
        if (item->kind != WB_NODE_MAP) {
            char found[128];
            wb_node_describe(item, found, sizeof found);
            st = wb_node_error(b->err, item, "'%s' expects a mapping, found %s", b->path, found);
            break;
        }
        st = wb_schema_bind(f->sub, item, &tmp.keys[i], b);
        if (!st && i > 0 && !(tmp.keys[i].time > tmp.keys[i - 1].time)) {
            const WbNode *at = wb_node_get(item, "time", NULL);
            st = wb_node_error(b->err, at, "'%s.time' must be later than the previous key's "
                               "time %g, found %s", b->path, tmp.keys[i - 1].time, at->text);
        }
    }
    memcpy(b->path, saved, sizeof saved);
    b->key = outer;
    if (!st)
        *p = tmp;
    return st;
}

void wb_keys_key_list_print(const WbField *f, const void *base, FILE *out, int indent)
{
    const WbKeyList *p = RCAT(base, f->offset, WbKeyList);
    if (indent >= 0)
        fputc(' ', out);
    fputc('[', out);
    for (int i = 0; i < p->n; i++) {
        if (i)
            fputs(", ", out);
        wb_schema_print(f->sub, &p->keys[i], out, 0, true);
    }
    fputc(']', out);
    if (indent >= 0)
        fputc('\n', out);
}

void wb_keys_key_list_keys(const WbField *f, const char *path, WbKeyFn fn, void *ud)
{
    char p[300];
    snprintf(p, sizeof p, "%s[]", path);
    wb_schema_keys(f->sub, p, fn, ud);
}

/* ---- set: ramps of a kind's numeric parameters ---- */

/* The keys a `set` event may ramp: the numbers each adapter reads again at
 * every step (others, like a grid size or a rate, shape the run once). */
static const char *const photo_ramps[] = {"photo.frequency", "photo.elasticity", "photo.bounce",
                                          "photo.grip", NULL};
static const char *const rope_ramps[] = {"rope.damping", "rope.gravity", NULL};
static const char *const jiggle_ramps[] = {"jiggle.freq", "jiggle.damp", "jiggle.gravity",
                                           "jiggle.limit", "jiggle.restitution",
                                           "jiggle.drive.gain", NULL};
static const char *const cloth_ramps[] = {"cloth.stiffness", "cloth.damping",
                                          "cloth.friction",
                                          "cloth.wind_response", "cloth.gravity", NULL};

static const char *const *ramps_of(WbKind k)
{
    switch (k) {
    case WB_KIND_PHOTO: return photo_ramps;
    case WB_KIND_ROPE: return rope_ramps;
    case WB_KIND_JIGGLE: return jiggle_ramps;
    case WB_KIND_CLOTH: return cloth_ramps;
    }
    return NULL;
}

static const WbSchema *block_of(WbKind k)
{
    switch (k) {
    case WB_KIND_PHOTO: return &wb_keys_photo;
    case WB_KIND_ROPE: return &wb_keys_rope;
    case WB_KIND_JIGGLE: return &wb_keys_jiggle;
    case WB_KIND_CLOTH: return &wb_keys_cloth;
    }
    return NULL;
}

/* The row of a dotted key below the kind's block ("drive.gain"), and the
 * offset of its value from the block's start; NULL when there is none. */
static const WbField *find_field(const WbSchema *s, const char *key, size_t *offset)
{
    *offset = 0;
    for (;;) {
        const char *dot = strchr(key, '.');
        size_t len = dot ? (size_t)(dot - key) : strlen(key);
        const WbField *f = NULL;
        for (size_t i = 0; i < s->n && !f; i++)
            if (strlen(s->fields[i].key) == len && !strncmp(s->fields[i].key, key, len))
                f = &s->fields[i];
        if (!f)
            return NULL;
        *offset += f->offset;
        if (!dot)
            return f;
        if (f->type != WB_FIELD_BLOCK)
            return NULL;
        s = f->sub;
        key = dot + 1;
    }
}


static const WbField set_fields[] = {
    {.key = "key", .type = WB_FIELD_STRING, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.set.key), .aux = WB_SET_KEY_MAX, .def = "",
     .doc = "the parameter, e.g. photo.bounce (man page: Ramps lists them per kind)"},
    {.key = "to", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.set.to), .min = -1e300, .max = 1e300, .def = "",
     .type_name = "number in the key's own range",
     .doc = "the value at the ramp's end, in the key's own unit and range"},
    {.key = "over", .type = WB_FIELD_NUMBER, .offset = OFF(WbEvent, u.set.over), .min = 0,
     .max = TIME_MAX, .def = "0", .doc = "seconds the ramp takes; 0 = at once"},
    {.key = "ease", .type = WB_FIELD_ENUM, .offset = OFF(WbEvent, u.set.ease),
     .names = wb_keys_ease_names, .def = "linear", .doc = "easing of the whole ramp"},
};

static void set_init(void *base)
{
    ((WbEvent *)base)->u.set.ease = WB_EASE_LINEAR;
}

static const WbSchema set_schema = {FIELDS(set_fields), .init = set_init};

/* A bound set event's key must be one its kind ramps, and its `to` must
 * pass the key's own row (the range errors of the block itself). */
static WbStatus check_set(WbKind kind, const WbNode *map, WbEvent *ev, WbBind *b)
{
    const char *const *ok = ramps_of(kind);
    const WbNode *key = wb_node_get(map, "key", NULL);
    bool found = false;
    for (size_t i = 0; ok[i] && !found; i++)
        found = !strcmp(ok[i], ev->u.set.key);
    if (!found) {
        char list[512] = "";
        for (size_t i = 0; ok[i]; i++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", ok[i]);
        }
        const char *sug = wb_schema_suggest(ev->u.set.key, ok);
        if (sug)
            return wb_node_error(b->err, key, "'%s.key': '%s' cannot be ramped (did you mean "
                                 "'%s'?)", b->path, ev->u.set.key, sug);
        return wb_node_error(b->err, key, "'%s.key': '%s' cannot be ramped; this kind ramps %s",
                             b->path, ev->u.set.key, list);
    }
    const char *dot = strchr(ev->u.set.key, '.');
    size_t off;
    const WbField *f = find_field(block_of(kind), dot + 1, &off);
    assert(f && f->type == WB_FIELD_NUMBER);
    ev->u.set.offset = off;
    /* Bind `to` through the key's own row, into a scratch block, under the
     * key's own name, so the message is the one the block would give. */
    union {
        WbPhotoDef photo;
        WbRopeSceneDef rope;
        WbJiggleSceneDef jiggle;
        WbClothSceneDef cloth;
    } scratch;
    memset(&scratch, 0, sizeof scratch);
    char saved[sizeof b->path];
    memcpy(saved, b->path, sizeof saved);
    const char *last = strrchr(ev->u.set.key, '.');
    snprintf(b->path, sizeof b->path, "%.*s", (int)(last - ev->u.set.key), ev->u.set.key);
    const WbNode *outer = b->key;
    b->key = NULL;
    char *base = (char *)&scratch + off - f->offset;
    WbStatus st = wb_schema_bind_field(f, wb_node_get(map, "to", NULL), base, b);
    memcpy(b->path, saved, sizeof saved);
    b->key = outer;
    return st;
}

/* ---- teleport and reset ---- */

static const WbField teleport_fields[] = {
    {.key = "by", .type = WB_FIELD_POINT, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.teleport.by), .min = -WORLD_MAX, .max = WORLD_MAX, .def = "",
     .type_name = "[dx, dy] in world units",
     .doc = "how far the driver jumps (jiggle parent, rope anchors and ropes)"},
};

/* The worlds that teleport have no pixels. */
static WbStatus teleport_check(void *base, const WbNode *map, WbBind *b)
{
    const WbEvent *ev = base;
    if (ev->u.teleport.by.px_x || ev->u.teleport.by.px_y)
        return wb_node_error(b->err, wb_node_get(map, "by", NULL),
                             "'%s.by' is in world units; pixels are not accepted here", b->path);
    return WB_OK;
}

static const WbSchema teleport_schema = {FIELDS(teleport_fields), .check = teleport_check};
static const WbSchema reset_schema = {.fields = NULL, .n = 0};

/* ---- events ---- */

typedef struct Action {
    const char *name;
    WbEventType type;
    const WbSchema *schema;
    unsigned kinds;      /* bit per WbKind that has this action */
    const char *doc;
} Action;

#define KIND_BIT(k) (1u << (k))

/* Every kind's actions, in the order `wobble info --keys` lists them; a
 * name may mean different actions in different kinds (release). */
static const Action actions[] = {
    {"grab", WB_EVENT_GRAB, &wb_keys_grab, KIND_BIT(WB_KIND_PHOTO),
     "take hold at `at`; the cursor follows `path`"},
    {"release", WB_EVENT_RELEASE, &wb_keys_release, KIND_BIT(WB_KIND_PHOTO),
     "let go of the grab; the mesh keeps its motion"},
    {"pin", WB_EVENT_PIN, &wb_keys_pin, KIND_BIT(WB_KIND_PHOTO),
     "hold the mesh around `at` (at most 4 at once)"},
    {"unpin", WB_EVENT_UNPIN, &wb_keys_unpin, KIND_BIT(WB_KIND_PHOTO),
     "remove a pin by name, or all pins"},
    {"cut", WB_EVENT_CUT, &wb_keys_cut, KIND_BIT(WB_KIND_ROPE),
     "cut one link of a rope (rope scenes); the rope falls apart there"},
    {"reseed", WB_EVENT_RESEED, &wb_keys_reseed, KIND_BIT(WB_KIND_JIGGLE),
     "new per-bone character from `seed` (jiggle scenes); positions kept"},
    {"shake", WB_EVENT_SHAKE, &wb_keys_shake, KIND_BIT(WB_KIND_JIGGLE),
     "random velocity kick from the same generator (jiggle scenes)"},
    {"release", WB_EVENT_CLOTH_RELEASE, &wb_keys_cloth_release, KIND_BIT(WB_KIND_CLOTH),
     "let a named cloth pin (or every pin) go (cloth scenes); it falls from rest"},
    {"wind", WB_EVENT_CLOTH_WIND, &wb_keys_cloth_wind, KIND_BIT(WB_KIND_CLOTH),
     "change the wind, at once or over `ramp` seconds (cloth scenes)"},
    {"set", WB_EVENT_SET, &set_schema,
     KIND_BIT(WB_KIND_PHOTO) | KIND_BIT(WB_KIND_ROPE) | KIND_BIT(WB_KIND_JIGGLE) |
         KIND_BIT(WB_KIND_CLOTH),
     "ramp a numeric parameter of the kind's block to `to` over `over` seconds"},
    {"teleport", WB_EVENT_TELEPORT, &teleport_schema,
     KIND_BIT(WB_KIND_JIGGLE) | KIND_BIT(WB_KIND_ROPE),
     "move the driver by `by` in one step; the simulation does not feel the jump"},
    {"teleport", WB_EVENT_TELEPORT, &wb_keys_cloth_teleport, KIND_BIT(WB_KIND_CLOTH),
     "move the cloth, its pins and its bodies by `by` in one step; it keeps its shape and motion"},
    {"reset", WB_EVENT_RESET, &reset_schema,
     KIND_BIT(WB_KIND_JIGGLE) | KIND_BIT(WB_KIND_ROPE) | KIND_BIT(WB_KIND_CLOTH),
     "the solver back at rest at its current pose"},
};
#define N_ACTIONS (sizeof actions / sizeof *actions)

/* An event of action a with its defaults: zero, and what the action's
 * table sets (an automatic radius, a wind direction, ...). */
static void event_init(WbEvent *ev, const Action *a)
{
    memset(ev, 0, sizeof *ev);
    ev->type = a->type;
    if (a->schema->init)
        a->schema->init(ev);
}

static const WbField time_field = {
    .key = "time", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_REQUIRED,
    .offset = OFF(WbEvent, time), .min = 0, .max = TIME_MAX, .def = "",
    .doc = "when the event happens, seconds from the start"};

/* What the cross-event rules need to know of one bound event. */
typedef struct EventSrc {
    WbEvent ev;
    const WbNode *action_key;
    size_t order;              /* place in the file: ties keep it */
} EventSrc;

/* By time, then file order: a stable sort through qsort, O(n log n) even
 * for the longest timeline a scene file can hold. */
static int event_cmp(const void *a, const void *b)
{
    const EventSrc *x = a, *y = b;
    if (x->ev.time != y->ev.time)
        return x->ev.time < y->ev.time ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static void free_events(EventSrc *es, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (es[i].ev.type == WB_EVENT_GRAB)
            free(es[i].ev.u.grab.path);
    free(es);
}

/* One timeline item: `time` plus exactly one action key. */
static WbStatus bind_event(const WbNode *item, size_t index, WbKind kind, EventSrc *out,
                           WbBind *b)
{
    unsigned kind_bit = KIND_BIT(kind);
    /* The keys an event of this kind may have, for hints and messages. */
    const char *names[N_ACTIONS + 2];
    char list[256] = "";
    size_t n_names = 0;
    names[n_names++] = "time";
    for (size_t a = 0; a < N_ACTIONS; a++) {
        if (!(actions[a].kinds & kind_bit))
            continue;
        names[n_names++] = actions[a].name;
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", actions[a].name);
    }
    names[n_names] = NULL;

    snprintf(b->path, sizeof b->path, "timeline[%zu]", index);
    if (item->kind != WB_NODE_MAP) {
        char found[128];
        wb_node_describe(item, found, sizeof found);
        return wb_node_error(b->err, item,
                             "'%s' expects a mapping like {time: 1, grab: {...}}, found %s",
                             b->path, found);
    }
    const Action *act = NULL;
    const WbNode *act_value = NULL, *act_key = NULL, *time = NULL;
    for (size_t i = 0; i < item->n; i++) {
        const WbNode *k = item->keys[i];
        for (size_t j = 0; j < i; j++)
            if (!strcmp(item->keys[j]->text, k->text))
                return wb_node_error(b->err, k, "duplicate key '%s.%s' (first given at line %d)",
                                     b->path, k->text, item->keys[j]->line);
        if (!strcmp(k->text, "time")) {
            time = item->items[i];
            continue;
        }
        const Action *found = NULL;
        for (size_t a = 0; a < N_ACTIONS; a++)
            if (!strcmp(k->text, actions[a].name) && (actions[a].kinds & kind_bit))
                found = &actions[a];
        if (!found) {
            const char *sug = wb_schema_suggest(k->text, names);
            if (sug)
                return wb_node_error(b->err, k, "unknown key '%s' in '%s' (did you mean '%s'?)",
                                     k->text, b->path, sug);
            return wb_node_error(b->err, k,
                                 "unknown key '%s' in '%s' (expected time and one of %s)",
                                 k->text, b->path, list);
        }
        if (act)
            return wb_node_error(b->err, k,
                                 "'%s' has two actions, '%s' and '%s'; give one per event",
                                 b->path, act->name, found->name);
        act = found;
        act_key = k;
        act_value = item->items[i];
    }
    if (!time)
        return wb_node_error(b->err, item, "missing required key 'time' in '%s'", b->path);
    if (!act)
        return wb_node_error(b->err, item, "'%s' needs an action: one of %s", b->path, list);

    event_init(&out->ev, act);
    out->ev.src_line = item->line;
    out->ev.src_col = item->col;
    out->action_key = act_key;
    WbStatus st = wb_schema_bind_field(&time_field, time, &out->ev, b);
    if (st)
        return st;
    if (!wb_node_is_null(act_value) && act_value->kind != WB_NODE_MAP) {
        char found[128];
        wb_node_describe(act_value, found, sizeof found);
        return wb_node_error(b->err, act_value, "'%s.%s' expects a mapping, found %s", b->path,
                             act->name, found);
    }
    size_t plen = strlen(b->path);
    snprintf(b->path + plen, sizeof b->path - plen, ".%s", act->name);
    b->key = act_key;
    st = wb_schema_bind(act->schema, act_value, &out->ev, b);
    b->key = NULL;
    if (!st && act->type == WB_EVENT_SET)
        st = check_set(kind, act_value, &out->ev, b);
    return st;
}

/* The rules that need the whole timeline, walked in time order. */
static WbStatus check_timeline(const EventSrc *es, size_t n, WbError *err)
{
    const EventSrc *grab = NULL;
    const EventSrc *pins[WB_MAX_PINS];
    size_t n_pins = 0;
    for (size_t i = 0; i < n; i++) {
        const EventSrc *e = &es[i];
        const WbEvent *ev = &e->ev;
        switch (ev->type) {
        case WB_EVENT_GRAB:
            if (grab)
                return wb_node_error(err, e->action_key,
                                     "grab at %g s while the grab from line %d is still held "
                                     "(release it first)", ev->time, grab->action_key->line);
            grab = e;
            break;
        case WB_EVENT_RELEASE:
            if (!grab)
                return wb_node_error(err, e->action_key,
                                     "release at %g s with no active grab", ev->time);
            grab = NULL;
            break;
        case WB_EVENT_PIN:
            for (size_t p = 0; ev->u.pin.name[0] && p < n_pins; p++)
                if (!strcmp(pins[p]->ev.u.pin.name, ev->u.pin.name))
                    return wb_node_error(err, e->action_key,
                                         "a pin named '%s' is already active (set at line %d)",
                                         ev->u.pin.name, pins[p]->action_key->line);
            if (n_pins == WB_MAX_PINS)
                return wb_node_error(err, e->action_key,
                                     "pin at %g s would make %d pins active; at most %d at once "
                                     "(unpin one first)", ev->time, WB_MAX_PINS + 1, WB_MAX_PINS);
            pins[n_pins++] = e;
            break;
        case WB_EVENT_UNPIN: {
            if (!ev->u.unpin.name[0]) {
                n_pins = 0;
                break;
            }
            size_t p = 0;
            while (p < n_pins && strcmp(pins[p]->ev.u.pin.name, ev->u.unpin.name))
                p++;
            if (p == n_pins)
                return wb_node_error(err, e->action_key,
                                     "unpin at %g s: no active pin is named '%s'", ev->time,
                                     ev->u.unpin.name);
            pins[p] = pins[--n_pins];
            break;
        }
        case WB_EVENT_CUT:
            break;   /* checked against the ropes once the whole scene is bound */
        case WB_EVENT_RESEED:
        case WB_EVENT_SHAKE:
            break;   /* jiggle: any number, any order */
        case WB_EVENT_CLOTH_RELEASE:
        case WB_EVENT_CLOTH_WIND:
            break;   /* cloth: pin names are checked against the cloth block */
        case WB_EVENT_SET:
            break;   /* ramps may overlap: a later one starts from the value then */
        case WB_EVENT_TELEPORT:
        case WB_EVENT_RESET:
            break;   /* any number, any order */
        }
    }
    return WB_OK;
}

WbStatus wb_keys_timeline_bind(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    (void)f;
    WbScene *s = base;
    if (wb_node_is_null(v)) {
        wb_scene_free_events(s);
        return WB_OK;
    }
    if (v->kind != WB_NODE_SEQ) {
        char found[128];
        wb_node_describe(v, found, sizeof found);
        return wb_node_error(b->err, v, "'timeline' expects a list of events, found %s", found);
    }
    EventSrc *es = v->n ? calloc(v->n, sizeof *es) : NULL;
    if (v->n && !es)
        return wb_error_set(b->err, WB_E_IO, "out of memory");
    WbStatus st = WB_OK;
    size_t bound = 0;
    for (; bound < v->n && !st; bound++)
        st = bind_event(v->items[bound], bound, s->kind, &es[bound], b);
    b->path[0] = '\0';
    if (st) {
        free_events(es, bound);
        return st;
    }
    /* Sorted by time: events at the same time keep file order. */
    for (size_t i = 0; i < v->n; i++)
        es[i].order = i;
    if (v->n > 1)
        qsort(es, v->n, sizeof *es, event_cmp);
    st = check_timeline(es, v->n, b->err);
    WbEvent *events = v->n && !st ? malloc(v->n * sizeof *events) : NULL;
    if (!st && v->n && !events)
        st = wb_error_set(b->err, WB_E_IO, "out of memory");
    if (st) {
        free_events(es, v->n);
        return st;
    }
    for (size_t i = 0; i < v->n; i++)
        events[i] = es[i].ev;
    free(es);   /* the grab paths now belong to events */
    wb_scene_free_events(s);
    s->events = events;
    s->n_events = v->n;
    return WB_OK;
}

static const Action *action_of(WbEventType t)
{
    for (size_t a = 0; a < N_ACTIONS; a++)
        if (actions[a].type == t)
            return &actions[a];
    return NULL;
}

static void print_event(const WbEvent *ev, FILE *out)
{
    const Action *a = action_of(ev->type);
    fputs("time: ", out);
    wb_schema_print_number(out, ev->time);
    fprintf(out, ", %s: ", a->name);
    wb_schema_print(a->schema, ev, out, 0, true);
}

/* indent < 0: flow style (a value inside braces). */
void wb_keys_timeline_print(const WbField *f, const void *base, FILE *out, int indent)
{
    (void)f;
    const WbScene *s = base;
    if (indent < 0 || s->n_events == 0) {
        fputs(indent < 0 ? "[" : " [", out);
        for (size_t i = 0; i < s->n_events; i++) {
            fputs(i ? ", {" : "{", out);
            print_event(&s->events[i], out);
            fputc('}', out);
        }
        fputs(indent < 0 ? "]" : "]\n", out);
        return;
    }
    fputc('\n', out);
    for (size_t i = 0; i < s->n_events; i++) {
        const WbEvent *ev = &s->events[i];
        const Action *a = action_of(ev->type);
        fprintf(out, "%*s  - time: ", indent, "");
        wb_schema_print_number(out, ev->time);
        fprintf(out, "\n%*s    %s: ", indent, "", a->name);
        wb_schema_print(a->schema, ev, out, 0, true);
        fputc('\n', out);
    }
}

void wb_keys_timeline_keys(const WbField *f, const char *path, WbKeyFn fn, void *ud)
{
    (void)f;
    static const WbSchema time_schema = {.fields = &time_field, .n = 1};
    char p[256];
    snprintf(p, sizeof p, "%s[]", path);
    wb_schema_keys(&time_schema, p, fn, ud);
    for (size_t a = 0; a < N_ACTIONS; a++) {
        snprintf(p, sizeof p, "%s[].%s", path, actions[a].name);
        fn(p, "mapping", "", actions[a].doc, ud);
        wb_schema_keys(actions[a].schema, p, fn, ud);
    }
}

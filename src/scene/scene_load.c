/* scene_load.c — the scene format: schema tables, the timeline, load, print
 * and the key list.
 *
 * Loading is three steps, each reporting file:line:col:
 *   1. YAML text → node tree (node.c);
 *   2. every --set key.path=value edits the tree (so overrides get exactly
 *      the validation the file gets);
 *   3. the tree binds to WbScene through the tables below (schema.c).
 * A new scene kind adds a block table, a `kind` name and its timeline
 * actions; nothing here walks YAML by hand except the timeline, whose
 * "time + exactly one action" items no plain table can express.
 */
#include "scene/scene_load.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/node.h"
#include "scene/schema.h"

/* ---------------------------------------------------------------- tables */

#define OFF(T, m) offsetof(T, m)
#define FIELDS(a) .fields = (a), .n = sizeof(a) / sizeof *(a)

/* WB_FIELD_ENUM stores through an int lvalue (valid for an enum whose
 * compatible type is int or unsigned int); these keep that true. */
_Static_assert(sizeof(WbKind) == sizeof(int), "enum size");
_Static_assert(sizeof(WbFit) == sizeof(int), "enum size");
_Static_assert(sizeof(WbIntegrator) == sizeof(int), "enum size");
_Static_assert(sizeof(WbPreset) == sizeof(int), "enum size");
_Static_assert(sizeof(WbEase) == sizeof(int), "enum size");

static const char *const kind_names[] = {"photo", "jiggle", "cloth", "rope", NULL};
static const char *const fit_names[] = {"fit", "fill", NULL};
static const char *const integrator_names[] = {"euler", "exact", NULL};
static const char *const preset_names[] = {"none", "spring", "rubber", "jelly", NULL};
static const char *const ease_names[] = {"linear", "in", "out", "in-out", "step", NULL};

/* Times on the timeline: seconds, non-negative, below a bound that keeps
 * arithmetic on them exact enough. */
#define TIME_MAX 1e6
/* A drag may leave the image; how far is a sanity bound, not a rule. */
#define DRAG_REACH 10.0

static const WbField output_fields[] = {
    {.key = "width", .type = WB_FIELD_INT, .offset = OFF(WbOutputDef, width), .min = 0,
     .max = 16384, .def = "0", .doc = "frame width in pixels; 0 = derived: photo, the image's own; rope and jiggle, from the height and the view's aspect (640 when both are 0)"},
    {.key = "height", .type = WB_FIELD_INT, .offset = OFF(WbOutputDef, height), .min = 0,
     .max = 16384, .def = "0", .doc = "frame height in pixels; 0 = derived: photo, the image's own; rope and jiggle, from the width and the view's aspect"},
    {.key = "fps", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbOutputDef, fps), .min = 0, .max = 1000, .def = "30",
     .doc = "frames per second of the output; at least 0.001 (as --fps)"},
    {.key = "duration", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbOutputDef, duration), .min = 0, .max = 3600, .def = "3",
     .doc = "length in seconds; with until_settled, the upper bound"},
    {.key = "until_settled", .type = WB_FIELD_BOOL, .offset = OFF(WbOutputDef, until_settled),
     .def = "false", .doc = "stop at the first frame where nothing moves and no event is left (after settle_hold)"},
    {.key = "settle_hold", .type = WB_FIELD_NUMBER, .offset = OFF(WbOutputDef, settle_hold),
     .min = 0, .max = 60, .def = "0", .doc = "seconds of stillness kept after settling"},
    {.key = "background", .type = WB_FIELD_COLOR, .flags = WB_FIELD_TRANSPARENT,
     .offset = OFF(WbOutputDef, background), .aux = OFF(WbOutputDef, transparent),
     .def = "\"#000000\"",
     .doc = "\"#rrggbb\", \"#rrggbbaa\", [r, g, b(, a)] in 0..1, or transparent"},
    {.key = "fit", .type = WB_FIELD_ENUM, .offset = OFF(WbOutputDef, fit), .names = fit_names,
     .def = "fit", .doc = "fit: whole image visible, letterboxed; fill: frame covered, cropped"},
};
/* The encoders take the rate as a fraction in 1/1000 steps (29.97 and the
 * like exactly): a rate below 0.001 would be 0/1000, refused only when the
 * output opened and without the key's place; --fps has the same floor. */
#define FPS_MIN 1e-3
static WbStatus output_check(void *base, const WbNode *map, WbBind *b)
{
    const WbOutputDef *o = base;
    const WbNode *v = wb_node_get(map, "fps", NULL);
    if (v && o->fps < FPS_MIN) {
        char name[300];
        wb_schema_field_name(b, "fps", name, sizeof name);
        return wb_node_error(b->err, v, "%s must be at least %g, found %g", name, FPS_MIN,
                             o->fps);
    }
    return WB_OK;
}
static const WbSchema output_schema = {FIELDS(output_fields), .check = output_check};

static const WbField segment_fields[] = {
    {.key = "at", .type = WB_FIELD_POINT, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbSegmentDef, at), .min = 0, .max = 1, .def = "",
     .doc = "seed point of the flood fill"},
    {.key = "tolerance", .type = WB_FIELD_NUMBER, .offset = OFF(WbSegmentDef, tolerance),
     .min = 0, .max = 1, .def = "0.15",
     .doc = "largest RGB distance (Euclidean / sqrt 3) from the seed colour"},
};
static const WbSchema segment_schema = {FIELDS(segment_fields)};

static WbStatus preset_after(void *base, const WbNode *value, WbBind *b)
{
    (void)value;
    (void)b;
    WbPhotoDef *p = base;
    wb_photo_preset_apply(p, p->preset);
    return WB_OK;
}

static const WbField photo_fields[] = {
    {.key = "image", .type = WB_FIELD_PATH, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbPhotoDef, image), .aux = WB_PATH_MAX, .def = "",
     .doc = "the picture (PNG, JPEG, WebP, BMP, TIFF or a GIF's first frame; EXIF orientation honoured), relative to the scene file's folder"},
    {.key = "grid", .type = WB_FIELD_INT, .offset = OFF(WbPhotoDef, grid), .min = 1,
     .max = 2048, .def = "512", .doc = "mesh cells per side; (grid+1)^2 vertices"},
    {.key = "preset", .type = WB_FIELD_ENUM, .flags = WB_FIELD_EARLY,
     .offset = OFF(WbPhotoDef, preset), .names = preset_names, .after = preset_after,
     .def = "none", .doc = "sets frequency and bounce; explicit keys win over it"},
    {.key = "frequency", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbPhotoDef, frequency), .min = 0, .max = 100, .def = "2",
     .doc = "Hz of the spring at elasticity 0: k0 = (2 pi f)^2"},
    {.key = "elasticity", .type = WB_FIELD_NUMBER, .offset = OFF(WbPhotoDef, elasticity),
     .min = -1, .max = 1, .def = "0", .doc = "s: k = k0 * 2^s"},
    {.key = "bounce", .type = WB_FIELD_NUMBER, .offset = OFF(WbPhotoDef, bounce), .min = 0.16,
     .max = 1, .def = "0.3", .doc = "damping ratio zeta: c = zeta * 2 sqrt(k); 1 = no overshoot"},
    {.key = "integrator", .type = WB_FIELD_ENUM, .offset = OFF(WbPhotoDef, integrator),
     .names = integrator_names, .def = "euler",
     .doc = "euler: semi-implicit Euler; exact: closed-form damped oscillator step"},
    {.key = "rate", .type = WB_FIELD_NUMBER, .offset = OFF(WbPhotoDef, rate), .min = 10,
     .max = 100000, .def = "240", .doc = "simulation steps per second (dt = 1/rate)"},
    {.key = "radius", .type = WB_FIELD_LEN, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbPhotoDef, radius), .min = 0, .max = 10, .def = "auto",
     .doc = "grab radius; auto = 1/6 of the shorter edge, or from the mask's size"},
    {.key = "grip", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbPhotoDef, grip), .min = 0, .max = 10, .def = "0.35",
     .doc = "pull (shorter-edge units, at elasticity 0) past which the grip lets go"},
    {.key = "settle_epsilon", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbPhotoDef, settle_epsilon), .min = 0, .max = 0.1, .def = "2e-05",
     .doc = "below this motion (shorter-edge units) the mesh counts as still"},
    {.key = "mask", .type = WB_FIELD_PATH, .offset = OFF(WbPhotoDef, mask), .aux = WB_PATH_MAX,
     .def = "\"\"", .doc = "grey or alpha image (PNG, or any format photo.image reads) weighting the grab; \"\" = none"},
    {.key = "segment", .type = WB_FIELD_BLOCK, .flags = WB_FIELD_PRESENCE,
     .offset = OFF(WbPhotoDef, segment), .aux = OFF(WbPhotoDef, segment.enabled),
     .sub = &segment_schema, .def = "",
     .doc = "flood-fill mask from a seed point; present = enabled; excludes mask"},
};

static WbStatus photo_check(void *base, const WbNode *map, WbBind *b)
{
    const WbPhotoDef *p = base;
    size_t i;
    if (p->image[0] == '\0' && wb_node_get(map, "image", &i))
        return wb_node_error(b->err, map->items[i], "'photo.image' must name a file, found nothing");
    if (p->mask[0] && p->segment.enabled && wb_node_get(map, "segment", &i) &&
        wb_node_get(map, "mask", NULL))
        return wb_node_error(b->err, map->keys[i],
                             "'photo.segment' and 'photo.mask' cannot be used together; "
                             "give one of them");
    return WB_OK;
}

/* A value the preset produced is printed as a comment, so that the printed
 * scene reloads to the same values even when a preset sits outside the range
 * a hand-written key may take. */
static bool photo_implied(const void *base, const WbField *f)
{
    const WbPhotoDef *p = base;
    if (p->preset == WB_PRESET_NONE || f->type != WB_FIELD_NUMBER)
        return false;
    /* Mark the field, let the preset write: untouched means not a preset key. */
    WbPhotoDef ref = *p;
    double *want = (double *)(void *)((char *)&ref + f->offset);
    *want = NAN;
    wb_photo_preset_apply(&ref, p->preset);
    return *want == *(const double *)(const void *)((const char *)p + f->offset);
}

static const WbSchema photo_schema = {FIELDS(photo_fields),
                                      .check = photo_check, .implied = photo_implied};

/* ---- timeline actions ---- */

static void key_init(void *elem)
{
    WbKey *k = elem;
    *k = (WbKey){.ease = WB_EASE_IN_OUT};
}

static const WbField key_fields[] = {
    {.key = "time", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbKey, time), .min = 0, .max = TIME_MAX, .def = "",
     .doc = "absolute time (s) the cursor reaches `to`; after the grab and the previous key"},
    {.key = "to", .type = WB_FIELD_POINT, .flags = WB_FIELD_REQUIRED, .offset = OFF(WbKey, to),
     .min = -DRAG_REACH, .max = DRAG_REACH, .def = "", .doc = "cursor position"},
    {.key = "ease", .type = WB_FIELD_ENUM, .offset = OFF(WbKey, ease), .names = ease_names,
     .def = "in-out", .doc = "easing of the segment that ends at this key"},
};
static const WbSchema key_schema = {FIELDS(key_fields),
                                    .elem_size = sizeof(WbKey), .init = key_init};

static WbStatus grab_check(void *base, const WbNode *map, WbBind *b)
{
    const WbEvent *ev = base;
    const WbNode *path = wb_node_get(map, "path", NULL);
    double prev = ev->time;
    for (size_t i = 0; i < ev->u.grab.n_path; i++) {
        double t = ev->u.grab.path[i].time;
        if (t > prev) {
            prev = t;
            continue;
        }
        const WbNode *at = wb_node_get(path->items[i], "time", NULL);
        char when[64];
        snprintf(when, sizeof when, i ? "the previous key's" : "the grab's");
        return wb_node_error(b->err, at,
                             "'%s.path[%zu].time' must be later than %s time %g, found %s",
                             b->path, i, when, prev, at->text);
    }
    return WB_OK;
}

static const WbField grab_fields[] = {
    {.key = "at", .type = WB_FIELD_POINT, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.grab.at), .min = 0, .max = 1, .def = "",
     .doc = "where the grab takes hold (also where the cursor starts)"},
    {.key = "radius", .type = WB_FIELD_LEN, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbEvent, u.grab.radius), .min = 0, .max = 10, .def = "auto",
     .doc = "Gaussian radius of the grab; auto = photo.radius"},
    {.key = "path", .type = WB_FIELD_LIST, .offset = OFF(WbEvent, u.grab.path),
     .aux = OFF(WbEvent, u.grab.n_path), .sub = &key_schema, .def = "[]",
     .doc = "cursor keyframes {time, to, ease}; absolute, increasing times"},
};
static const WbSchema grab_schema = {FIELDS(grab_fields),
                                     .check = grab_check};

static const WbSchema release_schema = {.fields = NULL, .n = 0};

static const WbField pin_fields[] = {
    {.key = "at", .type = WB_FIELD_POINT, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.pin.at), .min = 0, .max = 1, .def = "",
     .doc = "centre of the pin"},
    {.key = "radius", .type = WB_FIELD_LEN, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbEvent, u.pin.radius), .min = 0, .max = 10, .def = "auto",
     .doc = "Gaussian radius of the pin; auto = half the grab radius rule"},
    {.key = "name", .type = WB_FIELD_STRING, .offset = OFF(WbEvent, u.pin.name),
     .aux = WB_NAME_MAX, .def = "\"\"", .doc = "name for a later unpin; \"\" = unnamed"},
};
static const WbSchema pin_schema = {FIELDS(pin_fields)};

static const WbField unpin_fields[] = {
    {.key = "name", .type = WB_FIELD_STRING, .offset = OFF(WbEvent, u.unpin.name),
     .aux = WB_NAME_MAX, .def = "\"\"", .doc = "the pin to remove; \"\" = every pin"},
};
static const WbSchema unpin_schema = {FIELDS(unpin_fields)};

/* ---- kind rope ---- */

/* World coordinates are metres; this bound only keeps arithmetic sane. */
#define WORLD_MAX 1e4

_Static_assert(sizeof(WbRopeSolverKind) == sizeof(int), "enum size");
_Static_assert(sizeof(WbRopePin) == sizeof(int), "enum size");

static const char *const rope_solver_names[] = {"jakobsen", "chain", NULL};
static const char *const rope_pin_names[] = {"both", "start", "end", "none", NULL};

/* The world has no pixels: a point written as [3px, 1px] is refused. */
static WbStatus world_point(const WbNode *map, const char *key, WbPoint p, WbBind *b)
{
    const WbNode *v = wb_node_get(map, key, NULL);
    if (!v || (!p.px_x && !p.px_y))
        return WB_OK;
    char name[300];
    wb_schema_field_name(b, key, name, sizeof name);
    return wb_node_error(b->err, v, "%s is in metres (rope scenes have no pixel points), found "
                         "a pixel value", name);
}

static WbStatus rope_key_check(void *base, const WbNode *map, WbBind *b)
{
    return world_point(map, "to", ((const WbKey *)base)->to, b);
}

static const WbField rope_key_fields[] = {
    {.key = "time", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbKey, time), .min = 0, .max = TIME_MAX, .def = "",
     .doc = "absolute time (s) the anchor reaches `to`; increasing"},
    {.key = "to", .type = WB_FIELD_POINT, .flags = WB_FIELD_REQUIRED, .offset = OFF(WbKey, to),
     .min = -WORLD_MAX, .max = WORLD_MAX, .type_name = "point [x, y] in metres", .def = "",
     .doc = "anchor position"},
    {.key = "ease", .type = WB_FIELD_ENUM, .offset = OFF(WbKey, ease), .names = ease_names,
     .def = "in-out", .doc = "easing of the segment that ends at this key"},
};
static const WbSchema rope_key_schema = {FIELDS(rope_key_fields), .elem_size = sizeof(WbKey),
                                         .init = key_init, .check = rope_key_check};

#define RAT(base, off, T) ((T *)(void *)((char *)(base) + (off)))
#define RCAT(base, off, T) ((const T *)(const void *)((const char *)(base) + (off)))

/* A WbKeyList field (rope start_path / end_path, jiggle drive.path /
 * drive.accel): keys bound by the field's `sub` schema into a fixed array. */
static WbStatus bind_key_list(const WbField *f, const WbNode *v, void *base, WbBind *b)
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
        key_init(&tmp.keys[i]);
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

static void print_key_list(const WbField *f, const void *base, FILE *out, int indent)
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

static void key_list_keys(const WbField *f, const char *path, WbKeyFn fn, void *ud)
{
    char p[300];
    snprintf(p, sizeof p, "%s[]", path);
    wb_schema_keys(f->sub, p, fn, ud);
}

/* obstacles[].points: 3..16 points [x, y] in metres. */
static WbStatus bind_points(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    WbRopeObstacleDef *o = base;
    char name[300];
    wb_schema_field_name(b, f->key, name, sizeof name);
    if (v->kind != WB_NODE_SEQ || v->n < 3 || v->n > WB_ROPE_SCENE_MAX_POINTS) {
        char found[128];
        if (v->kind == WB_NODE_SEQ)
            snprintf(found, sizeof found, "%zu points", v->n);
        else
            wb_node_describe(v, found, sizeof found);
        return wb_node_error(b->err, v, "%s expects a list of 3 to %d points [x, y] (metres), "
                             "found %s", name, WB_ROPE_SCENE_MAX_POINTS, found);
    }
    const WbField pt = {.key = f->key, .type = WB_FIELD_POINT, .min = -WORLD_MAX,
                        .max = WORLD_MAX, .type_name = "point [x, y] in metres"};
    WbRopeObstacleDef tmp = *o;
    tmp.n = (int)v->n;
    for (size_t i = 0; i < v->n; i++) {
        WbPoint p;
        WbStatus st = wb_schema_bind_field(&pt, v->items[i], &p, b);
        if (st)
            return st;
        if (p.px_x || p.px_y)
            return wb_node_error(b->err, v->items[i], "%s are in metres (rope scenes have no "
                                 "pixel points), found a pixel value", name);
        tmp.x[i] = p.x;
        tmp.y[i] = p.y;
    }
    *o = tmp;
    return WB_OK;
}

static void print_points(const WbField *f, const void *base, FILE *out, int indent)
{
    (void)f;
    const WbRopeObstacleDef *o = base;
    if (indent >= 0)
        fputc(' ', out);
    fputc('[', out);
    for (int i = 0; i < o->n; i++) {
        fputs(i ? ", [" : "[", out);
        wb_schema_print_number(out, o->x[i]);
        fputs(", ", out);
        wb_schema_print_number(out, o->y[i]);
        fputc(']', out);
    }
    fputc(']', out);
    if (indent >= 0)
        fputc('\n', out);
}

static void line_init(void *elem) { wb_rope_line_default(elem); }
static void obstacle_init(void *elem) { wb_rope_obstacle_default(elem); }

static WbStatus rope_line_check(void *base, const WbNode *map, WbBind *b)
{
    const WbRopeLineDef *l = base;
    WbStatus st = world_point(map, "from", l->from, b);
    if (!st)
        st = world_point(map, "to", l->to, b);
    if (st)
        return st;
    if (l->length == 0 && l->from.x == l->to.x && l->from.y == l->to.y)
        return wb_node_error(b->err, wb_node_get(map, "to", NULL),
                             "'%s' has from == to and no length; give a length or two "
                             "different points", b->path);
    bool start = l->pin == WB_ROPE_PIN_BOTH || l->pin == WB_ROPE_PIN_START;
    bool end = l->pin == WB_ROPE_PIN_BOTH || l->pin == WB_ROPE_PIN_END;
    const WbNode *at;
    if (l->start_path.n && !start && (at = wb_node_get(map, "start_path", NULL)))
        return wb_node_error(b->err, at, "'%s.start_path' moves the start anchor, but pin is "
                             "'%s'; use pin: start or both", b->path, rope_pin_names[l->pin]);
    if (l->end_path.n && !end && (at = wb_node_get(map, "end_path", NULL)))
        return wb_node_error(b->err, at, "'%s.end_path' moves the end anchor, but pin is "
                             "'%s'; use pin: end or both", b->path, rope_pin_names[l->pin]);
    return WB_OK;
}

static const WbField rope_line_fields[] = {
    {.key = "from", .type = WB_FIELD_POINT, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbRopeLineDef, from), .min = -WORLD_MAX, .max = WORLD_MAX,
     .type_name = "point [x, y] in metres", .def = "", .doc = "first particle (the start)"},
    {.key = "to", .type = WB_FIELD_POINT, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbRopeLineDef, to), .min = -WORLD_MAX, .max = WORLD_MAX,
     .type_name = "point [x, y] in metres", .def = "",
     .doc = "last particle (the end); the rope starts straight from..to"},
    {.key = "nodes", .type = WB_FIELD_INT, .offset = OFF(WbRopeLineDef, nodes), .min = 2,
     .max = 2048, .def = "20", .doc = "particles along the rope; links = nodes - 1"},
    {.key = "length", .type = WB_FIELD_NUMBER, .offset = OFF(WbRopeLineDef, length), .min = 0,
     .max = 1e5, .def = "0", .doc = "rest length in metres; 0 = the distance from..to"},
    {.key = "pin", .type = WB_FIELD_ENUM, .offset = OFF(WbRopeLineDef, pin),
     .names = rope_pin_names, .def = "start", .doc = "which ends are anchored"},
    {.key = "end_mass", .type = WB_FIELD_NUMBER, .offset = OFF(WbRopeLineDef, end_mass),
     .min = 0.01, .max = 10000, .def = "1",
     .doc = "mass of the last particle in node masses; > 1 draws a weight"},
    {.key = "width", .type = WB_FIELD_LEN, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbRopeLineDef, width), .min = 0, .max = 100,
     .type_name = "length: metres | Npx | auto", .def = "auto",
     .doc = "thickness, drawn and against obstacles (particles keep half of it from them); auto = 1/75 of the view's shorter side"},
    {.key = "colour", .type = WB_FIELD_COLOR, .offset = OFF(WbRopeLineDef, colour),
     .def = "\"#d9b880\"", .doc = "rope colour"},
    {.key = "start_path", .type = WB_FIELD_CUSTOM, .offset = OFF(WbRopeLineDef, start_path),
     .sub = &rope_key_schema, .bind = bind_key_list, .print = print_key_list, .keys = key_list_keys,
     .type_name = "list of keys", .def = "[]",
     .doc = "keys {time, to, ease} the pinned start follows (from `from` at 0 s)"},
    {.key = "end_path", .type = WB_FIELD_CUSTOM, .offset = OFF(WbRopeLineDef, end_path),
     .sub = &rope_key_schema, .bind = bind_key_list, .print = print_key_list, .keys = key_list_keys,
     .type_name = "list of keys", .def = "[]",
     .doc = "keys {time, to, ease} the pinned end follows (from `to` at 0 s)"},
};
static const WbSchema rope_line_schema = {FIELDS(rope_line_fields),
                                          .elem_size = sizeof(WbRopeLineDef),
                                          .init = line_init, .check = rope_line_check};

static WbStatus obstacle_check(void *base, const WbNode *map, WbBind *b)
{
    const WbRopeObstacleDef *o = base;
    const WbNode *at = wb_node_get(map, "points", NULL);
    double area2 = 0;
    for (int i = 0; i < o->n; i++) {
        int j = (i + 1) % o->n;
        area2 += o->x[i] * o->y[j] - o->x[j] * o->y[i];
    }
    if (!(fabs(area2) > 1e-12))
        return wb_node_error(b->err, at, "'%s.points' encloses no area", b->path);
    for (int i = 0; i < o->n; i++) {
        int j = (i + 1) % o->n, k = (i + 2) % o->n;
        double cr = (o->x[j] - o->x[i]) * (o->y[k] - o->y[j]) -
                    (o->y[j] - o->y[i]) * (o->x[k] - o->x[j]);
        if (cr * area2 < 0)
            return wb_node_error(b->err, at->items[j], "'%s.points' is not convex: it turns the "
                                 "other way at point %d", b->path, j);
    }
    return WB_OK;
}

static const WbField obstacle_fields[] = {
    {.key = "points", .type = WB_FIELD_CUSTOM, .flags = WB_FIELD_REQUIRED, .bind = bind_points,
     .print = print_points, .type_name = "list of 3..16 points [x, y] in metres", .def = "",
     .doc = "corners of a convex polygon, either winding"},
    {.key = "colour", .type = WB_FIELD_COLOR, .offset = OFF(WbRopeObstacleDef, colour),
     .def = "\"#5a6273\"", .doc = "fill colour (the outline is a darker shade)"},
};
static const WbSchema obstacle_schema = {FIELDS(obstacle_fields),
                                         .elem_size = sizeof(WbRopeObstacleDef),
                                         .init = obstacle_init, .check = obstacle_check};

static const WbField view_fields[] = {
    {.key = "width", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbRopeViewDef, width), .min = 0, .max = WORLD_MAX, .def = "4",
     .doc = "metres across; the world is [0, width] x [0, height], y down"},
    {.key = "height", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbRopeViewDef, height), .min = 0, .max = WORLD_MAX, .def = "3",
     .doc = "metres down"},
};
static const WbSchema view_schema = {FIELDS(view_fields)};

static WbStatus rope_check(void *base, const WbNode *map, WbBind *b)
{
    const WbRopeSceneDef *r = base;
    const WbNode *at;
    if (r->max_frame_delta < r->step && (at = wb_node_get(map, "max_frame_delta", NULL)))
        return wb_node_error(b->err, at, "'rope.max_frame_delta' must be at least rope.step "
                             "(%g s), found %s", r->step, at->text);
    if (r->max_frame_delta < r->step && (at = wb_node_get(map, "step", NULL)))
        return wb_node_error(b->err, at, "'rope.step' must be at most rope.max_frame_delta "
                             "(%g s), found %s", r->max_frame_delta, at->text);
    if (r->n_ropes > 64 && (at = wb_node_get(map, "ropes", NULL)))
        return wb_node_error(b->err, at, "'rope.ropes' has %zu ropes; at most 64", r->n_ropes);
    if (r->n_obstacles > 32 && (at = wb_node_get(map, "obstacles", NULL)))
        return wb_node_error(b->err, at, "'rope.obstacles' has %zu obstacles; at most 32",
                             r->n_obstacles);
    return WB_OK;
}

static const WbField rope_fields[] = {
    {.key = "solver", .type = WB_FIELD_ENUM, .offset = OFF(WbRopeSceneDef, solver),
     .names = rope_solver_names, .def = "jakobsen",
     .doc = "jakobsen: relaxation passes (the reference); chain: direct tridiagonal solve"},
    {.key = "passes", .type = WB_FIELD_INT, .offset = OFF(WbRopeSceneDef, passes), .min = 1,
     .max = 1000, .def = "5", .doc = "relaxation sweeps (jakobsen) or chain solves per step"},
    {.key = "damping", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbRopeSceneDef, damping), .min = 0, .max = 1, .def = "0.99",
     .doc = "share of the implicit velocity kept per step"},
    {.key = "gravity", .type = WB_FIELD_NUMBER, .offset = OFF(WbRopeSceneDef, gravity),
     .min = -1000, .max = 1000, .def = "9.81", .doc = "m/s^2 along +y (down)"},
    {.key = "step", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbRopeSceneDef, step), .min = 0, .max = 0.1, .def = "0.008333333333333333",
     .doc = "fixed time step in seconds (1/120); the render takes every step"},
    {.key = "max_frame_delta", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbRopeSceneDef, max_frame_delta), .min = 0, .max = 10, .def = "0.25",
     .doc = "clamp of a live frame delta fed to the accumulator, s (>= step)"},
    {.key = "settle_speed", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbRopeSceneDef, settle_speed), .min = 0, .max = 10, .def = "0.001",
     .doc = "below this speed (m/s) for every particle the ropes count as still"},
    {.key = "view", .type = WB_FIELD_BLOCK, .offset = OFF(WbRopeSceneDef, view),
     .sub = &view_schema, .def = "", .doc = "the world rectangle, framed into the output by fit"},
    {.key = "ropes", .type = WB_FIELD_LIST, .offset = OFF(WbRopeSceneDef, ropes),
     .aux = OFF(WbRopeSceneDef, n_ropes), .sub = &rope_line_schema, .def = "[]",
     .doc = "the ropes (at most 64)"},
    {.key = "obstacles", .type = WB_FIELD_LIST, .offset = OFF(WbRopeSceneDef, obstacles),
     .aux = OFF(WbRopeSceneDef, n_obstacles), .sub = &obstacle_schema, .def = "[]",
     .doc = "convex polygons the ropes rest on (at most 32)"},
};
static const WbSchema rope_schema = {FIELDS(rope_fields), .check = rope_check};

static const WbField cut_fields[] = {
    {.key = "rope", .type = WB_FIELD_INT, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.cut.rope), .min = 0, .max = 63, .def = "",
     .doc = "which rope (0-based, in rope.ropes order)"},
    {.key = "link", .type = WB_FIELD_INT, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.cut.link), .min = 0, .max = 2046, .def = "",
     .doc = "which link (0-based from the start; links = nodes - 1)"},
};
static const WbSchema cut_schema = {FIELDS(cut_fields)};

/* ---- kind jiggle ---- */

_Static_assert(sizeof(WbJiggleViewKind) == sizeof(int), "enum size");
_Static_assert(sizeof(WbJiggleShape) == sizeof(int), "enum size");

static const char *const jiggle_view_names[] = {"1d", "2d", "3d", NULL};
static const char *const jiggle_shape_names[] = {"disc", "capsule", "ring", "orb", "torus",
                                                 "dancer", "walker", NULL};

/* Jiggle points are world units (y up); pixel values are refused. */
static WbStatus jiggle_point(const WbNode *map, const char *key, WbPoint p, WbBind *b)
{
    const WbNode *v = wb_node_get(map, key, NULL);
    if (!v || (!p.px_x && !p.px_y))
        return WB_OK;
    char name[300];
    wb_schema_field_name(b, key, name, sizeof name);
    return wb_node_error(b->err, v, "%s is in world units (jiggle scenes have no pixel points), "
                         "found a pixel value", name);
}

static WbStatus jiggle_key_check(void *base, const WbNode *map, WbBind *b)
{
    return jiggle_point(map, "to", ((const WbKey *)base)->to, b);
}

static const WbField jiggle_key_fields[] = {
    {.key = "time", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbKey, time), .min = 0, .max = TIME_MAX, .def = "",
     .doc = "absolute time (s) the value reaches `to`; increasing"},
    {.key = "to", .type = WB_FIELD_POINT, .flags = WB_FIELD_REQUIRED, .offset = OFF(WbKey, to),
     .min = -WORLD_MAX, .max = WORLD_MAX, .type_name = "point [x, y] in world units", .def = "",
     .doc = "parent position (path) or acceleration (accel, units/s^2)"},
    {.key = "ease", .type = WB_FIELD_ENUM, .offset = OFF(WbKey, ease), .names = ease_names,
     .def = "in-out", .doc = "easing of the segment that ends at this key"},
};
static const WbSchema jiggle_key_schema = {FIELDS(jiggle_key_fields),
                                           .elem_size = sizeof(WbKey), .init = key_init,
                                           .check = jiggle_key_check};

static const WbField orbit_fields[] = {
    {.key = "yaw", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleOrbitDef, yaw), .min = -10,
     .max = 10, .def = "0.6", .doc = "yaw swing amplitude, radians"},
    {.key = "pitch", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleOrbitDef, pitch), .min = -10,
     .max = 10, .def = "0", .doc = "pitch swing amplitude, radians (looking down throws up)"},
    {.key = "period", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbJiggleOrbitDef, period), .min = 0, .max = 3600, .def = "2",
     .doc = "seconds of one swing: angle = amplitude * sin(2 pi t / period)"},
    {.key = "gain", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleOrbitDef, gain), .min = 0,
     .max = 100, .def = "0.04", .doc = "orbit drive: parent units per radian of orbit"},
};
static const WbSchema orbit_schema = {FIELDS(orbit_fields)};

static const WbField walk_fields[] = {
    {.key = "bob", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleWalkDef, bob), .min = 0,
     .max = 100, .def = "0.22", .doc = "vertical bob of the walk cycle, units: -|cos(3.2 t)| * bob"},
};
static const WbSchema walk_schema = {FIELDS(walk_fields)};

static WbStatus drive_check(void *base, const WbNode *map, WbBind *b)
{
    const WbJiggleDriveDef *d = base;
    static const char *const keys[] = {"path", "accel", "orbit", "walk"};
    bool given[4] = {d->path.n > 0, d->accel.n > 0, d->orbit.enabled, d->walk.enabled};
    int first = -1;
    for (int i = 0; i < 4; i++) {
        if (!given[i])
            continue;
        if (first < 0) {
            first = i;
            continue;
        }
        const WbNode *at = wb_node_get(map, keys[i], NULL);
        return wb_node_error(b->err, at ? at : map, "'%s' has both '%s' and '%s'; give one "
                             "driver", b->path, keys[first], keys[i]);
    }
    return WB_OK;
}

static const WbField drive_fields[] = {
    {.key = "path", .type = WB_FIELD_CUSTOM, .offset = OFF(WbJiggleDriveDef, path),
     .sub = &jiggle_key_schema, .bind = bind_key_list, .print = print_key_list, .keys = key_list_keys,
     .type_name = "list of keys", .def = "[]",
     .doc = "parent positions {time, to: [x, y], ease} from [0, 0] at 0 s"},
    {.key = "accel", .type = WB_FIELD_CUSTOM, .offset = OFF(WbJiggleDriveDef, accel),
     .sub = &jiggle_key_schema, .bind = bind_key_list, .print = print_key_list, .keys = key_list_keys,
     .type_name = "list of keys", .def = "[]",
     .doc = "parent acceleration keys {time, to: [ax, ay]} used as is (no driver)"},
    {.key = "orbit", .type = WB_FIELD_BLOCK, .flags = WB_FIELD_PRESENCE,
     .offset = OFF(WbJiggleDriveDef, orbit), .aux = OFF(WbJiggleDriveDef, orbit.enabled),
     .sub = &orbit_schema, .def = "", .doc = "camera orbit swing turned into parent motion"},
    {.key = "walk", .type = WB_FIELD_BLOCK, .flags = WB_FIELD_PRESENCE,
     .offset = OFF(WbJiggleDriveDef, walk), .aux = OFF(WbJiggleDriveDef, walk.enabled),
     .sub = &walk_schema, .def = "", .doc = "walk cycle: two footfalls per 1.96 s"},
    {.key = "gain", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleDriveDef, gain), .min = 0,
     .max = 100, .def = "1", .doc = "scale of the parent motion the bones feel"},
    {.key = "smoothing", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleDriveDef, smoothing),
     .min = 0, .max = 10, .def = "0.012",
     .doc = "driver velocity smoothing time constant, s (0 = raw differences)"},
};
static const WbSchema drive_schema = {FIELDS(drive_fields), .check = drive_check};

static const WbField jgain_fields[] = {
    {.key = "all", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleGainDef, all), .min = 0,
     .max = 100, .def = "1", .doc = "master gain on every painted region"},
    {.key = "bone0", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleGainDef, bone0), .min = 0,
     .max = 100, .def = "1", .doc = "gain of bone 0's region (red)"},
    {.key = "bone1", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleGainDef, bone1), .min = 0,
     .max = 100, .def = "1", .doc = "gain of bone 1's region (green)"},
    {.key = "bone2", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleGainDef, bone2), .min = 0,
     .max = 100, .def = "1", .doc = "gain of bone 2's region (blue)"},
};
static const WbSchema jgain_schema = {FIELDS(jgain_fields)};

static const WbField jfloor_fields[] = {
    {.key = "y", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleFloorDef, y), .min = -WORLD_MAX,
     .max = WORLD_MAX, .def = "-1.2", .doc = "height of the floor plane; bones keep y >= it"},
};
static const WbSchema jfloor_schema = {FIELDS(jfloor_fields)};

static WbStatus ring_collider_check(void *base, const WbNode *map, WbBind *b)
{
    return jiggle_point(map, "at", ((const WbJiggleRingColliderDef *)base)->at, b);
}

static const WbField ring_collider_fields[] = {
    {.key = "at", .type = WB_FIELD_POINT, .offset = OFF(WbJiggleRingColliderDef, at),
     .min = -WORLD_MAX, .max = WORLD_MAX, .type_name = "point [x, y] in world units",
     .def = "[1.6, -0.4]", .doc = "centre of the ring collider"},
    {.key = "radius", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbJiggleRingColliderDef, radius), .min = 0, .max = WORLD_MAX, .def = "0.35",
     .doc = "radius; bones are kept outside"},
};
static const WbSchema ring_collider_schema = {FIELDS(ring_collider_fields),
                                              .check = ring_collider_check};

static const WbField jcamera_fields[] = {
    {.key = "yaw", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleCameraDef, yaw), .min = -3600,
     .max = 3600, .def = "25", .doc = "3d: degrees around the shape; 0 looks from the front (+z)"},
    {.key = "pitch", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleCameraDef, pitch),
     .min = -89, .max = 89, .def = "12", .doc = "3d: degrees above the shape's centre"},
    {.key = "distance", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleCameraDef, distance),
     .min = 0, .max = WORLD_MAX, .def = "0",
     .doc = "3d: from the shape's centre, world units; 0 = fit the shape"},
    {.key = "fov", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbJiggleCameraDef, fov), .min = 1, .max = 150, .def = "40",
     .doc = "3d: vertical field of view, degrees"},
};
static const WbSchema jcamera_schema = {FIELDS(jcamera_fields)};

/* jiggle.weights must name a PNG that can be opened: checked here, where
 * the key's line and column are known (the runner decodes it later and
 * could only name the scene file).  Only the 8-byte signature is read. */
static WbStatus jiggle_weights_check(const char *path, const WbNode *map, WbBind *b)
{
    static const unsigned char SIG[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    const WbNode *v = wb_node_get(map, "weights", NULL);
    if (!v || !path[0])
        return WB_OK;
    char name[300];
    wb_schema_field_name(b, "weights", name, sizeof name);
    unsigned char head[8];
    FILE *f = fopen(path, "rb");
    if (!f)
        return wb_node_error(b->err, v, "%s: cannot read '%s': %s", name, path, strerror(errno));
    size_t got = fread(head, 1, sizeof head, f);
    int bad = ferror(f) ? errno : 0;
    fclose(f);
    if (bad)
        return wb_node_error(b->err, v, "%s: cannot read '%s': %s", name, path, strerror(bad));
    if (got != sizeof head || memcmp(head, SIG, sizeof SIG) != 0)
        return wb_node_error(b->err, v, "%s: '%s' is not a PNG file (a weight map is an RGBA "
                             "PNG: wobble weights export SHAPE writes one)", name, path);
    return WB_OK;
}

/* Shapes of each view: disc and ring are outlines only; orb, torus, dancer
 * and walker meshes only; capsule is both.  A 3d scene without a shape
 * gets the orb (the 2d default, disc, has no mesh). */
static WbStatus jiggle_check(void *base, const WbNode *map, WbBind *b)
{
    WbJiggleSceneDef *j = base;
    WbStatus st = jiggle_weights_check(j->weights, map, b);
    if (st)
        return st;
    const WbNode *shape = wb_node_get(map, "shape", NULL);
    bool mesh = j->shape >= WB_JIGGLE_SHAPE_ORB, outline = j->shape <= WB_JIGGLE_SHAPE_RING;
    if (j->view == WB_JIGGLE_VIEW_3D && !shape && !mesh) {
        j->shape = WB_JIGGLE_SHAPE_ORB;
        return WB_OK;
    }
    if (j->view == WB_JIGGLE_VIEW_3D && !mesh && j->shape != WB_JIGGLE_SHAPE_CAPSULE)
        return wb_node_error(b->err, shape, "'%s%sshape: %s' is a 2d outline; view 3d has orb, "
                             "capsule, torus, dancer and walker", b->path, *b->path ? "." : "",
                             jiggle_shape_names[j->shape]);
    if (j->view == WB_JIGGLE_VIEW_2D && !outline)
        return wb_node_error(b->err, shape ? shape : map, "'%s%sshape: %s' is a 3d mesh; view "
                             "2d has disc, capsule and ring (or set view: 3d)", b->path,
                             *b->path ? "." : "", jiggle_shape_names[j->shape]);
    return WB_OK;
}

static const WbField jiggle_fields[] = {
    {.key = "view", .type = WB_FIELD_ENUM, .offset = OFF(WbJiggleSceneDef, view),
     .names = jiggle_view_names, .def = "2d",
     .doc = "1d: three damping regimes as traces; 2d: outline with edge bones; 3d: lit mesh"},
    {.key = "shape", .type = WB_FIELD_ENUM, .offset = OFF(WbJiggleSceneDef, shape),
     .names = jiggle_shape_names, .def = "disc",
     .doc = "2d: disc, capsule or ring; 3d: orb (its default), capsule, torus, dancer, walker"},
    {.key = "freq", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbJiggleSceneDef, freq), .min = 0, .max = 1000, .def = "1.9",
     .doc = "natural frequency of the tissue, Hz"},
    {.key = "damp", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleSceneDef, damp), .min = 0,
     .max = 1e6, .def = "0.14", .doc = "damping ratio zeta (1 = critical); 1d: the first mass"},
    {.key = "gravity", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleSceneDef, gravity),
     .min = 0, .max = 1000, .def = "2.7",
     .doc = "pull along -y, units/s^2: each bone sags by it (2d and 3d; 1d has none)"},
    {.key = "rate", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleSceneDef, rate), .min = 1,
     .max = 100000, .def = "120",
     .doc = "steps per second (dt = 1/rate); the step is exact at any rate"},
    {.key = "weights", .type = WB_FIELD_PATH, .offset = OFF(WbJiggleSceneDef, weights),
     .aux = WB_PATH_MAX, .def = "\"\"",
     .doc = "weight map PNG (R/G/B = bones 0/1/2); seed-<n> in the name reseeds; \"\" = preset"},
    {.key = "force_radius", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleSceneDef, force_radius),
     .min = 0, .max = 1, .def = "0.15",
     .doc = "blur spreading the jiggle beyond the paint, fraction of the map width"},
    {.key = "gain", .type = WB_FIELD_BLOCK, .offset = OFF(WbJiggleSceneDef, gain),
     .sub = &jgain_schema, .def = "", .doc = "region strength: weight *= all * bone gain"},
    {.key = "limit", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleSceneDef, limit), .min = 0,
     .max = WORLD_MAX, .def = "0.4", .doc = "offsets confined to |x| <= limit; 0 = no limit"},
    {.key = "restitution", .type = WB_FIELD_NUMBER,
     .offset = OFF(WbJiggleSceneDef, restitution), .min = 0, .max = 1, .def = "0",
     .doc = "bounce off colliders: 0 = stop, 1 = elastic"},
    {.key = "floor", .type = WB_FIELD_BLOCK, .flags = WB_FIELD_PRESENCE,
     .offset = OFF(WbJiggleSceneDef, floor), .aux = OFF(WbJiggleSceneDef, floor.enabled),
     .sub = &jfloor_schema, .def = "", .doc = "floor plane collider, drawn; present = enabled"},
    {.key = "ring_collider", .type = WB_FIELD_BLOCK, .flags = WB_FIELD_PRESENCE,
     .offset = OFF(WbJiggleSceneDef, ring_collider),
     .aux = OFF(WbJiggleSceneDef, ring_collider.enabled), .sub = &ring_collider_schema,
     .def = "", .doc = "a ring (2d) or sphere (3d, at z 0) collider the bones stay out of"},
    {.key = "overlay", .type = WB_FIELD_BOOL, .offset = OFF(WbJiggleSceneDef, overlay),
     .def = "false", .doc = "draw the bones: rest point -> offset dot (2d and 3d)"},
    {.key = "window", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbJiggleSceneDef, window), .min = 0, .max = 600, .def = "4",
     .doc = "1d: seconds of trace on screen"},
    {.key = "colour", .type = WB_FIELD_COLOR, .offset = OFF(WbJiggleSceneDef, colour),
     .def = "\"#ee9e8c\"",
     .doc = "2d: fill of the shape (bones tint it); 3d: its surface, opaque (alpha ignored)"},
    {.key = "drive", .type = WB_FIELD_BLOCK, .offset = OFF(WbJiggleSceneDef, drive),
     .sub = &drive_schema, .def = "", .doc = "the parent's motion: path, accel, orbit or walk"},
    {.key = "camera", .type = WB_FIELD_BLOCK, .offset = OFF(WbJiggleSceneDef, camera),
     .sub = &jcamera_schema, .def = "", .doc = "3d: orbit camera (the orbit drive swings it)"},
    {.key = "squash", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleSceneDef, squash), .min = 0,
     .max = 1, .def = "0",
     .doc = "3d: squash-and-stretch styling along each bone's offset (volume kept); 0 = off"},
    {.key = "heatmap", .type = WB_FIELD_BOOL, .offset = OFF(WbJiggleSceneDef, heatmap),
     .def = "false", .doc = "3d: paint the weights (R/G/B = bones 0/1/2) instead of colour"},
};
static const WbSchema jiggle_schema = {FIELDS(jiggle_fields), .check = jiggle_check};

static const WbField reseed_fields[] = {
    {.key = "seed", .type = WB_FIELD_U32, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.reseed.seed), .min = 0, .max = 4294967295.0, .def = "",
     .doc = "new seed of the per-bone character (mulberry32)"},
};
static const WbSchema reseed_schema = {FIELDS(reseed_fields)};

static const WbField shake_fields[] = {
    {.key = "span", .type = WB_FIELD_NUMBER, .offset = OFF(WbEvent, u.shake.span), .min = 0,
     .max = 1e6, .def = "11", .doc = "units/s: each velocity axis += (u - 1/2) * span"},
};
static const WbSchema shake_schema = {FIELDS(shake_fields)};

/* ---- kind cloth ---- */

_Static_assert(sizeof(WbClothFabricKind) == sizeof(int), "enum size");
_Static_assert(sizeof(WbClothSolverKind) == sizeof(int), "enum size");
_Static_assert(sizeof(WbClothBendKind) == sizeof(int), "enum size");
_Static_assert(sizeof(WbClothLayout) == sizeof(int), "enum size");
_Static_assert(sizeof(WbClothPinSet) == sizeof(int), "enum size");

static const char *const cloth_fabric_names[] = {"chiffon", "silk", "cotton", "wool", "denim",
                                                 "leather", NULL};
static const char *const cloth_solver_names[] = {"pbd", "xpbd", NULL};
static const char *const cloth_bending_names[] = {"skip-one", "dihedral", NULL};
static const char *const cloth_layout_names[] = {"horizontal", "vertical", NULL};
static const char *const cloth_pin_names[] = {"none", "top-edge", "top-corners", "corners",
                                              "left-edge", NULL};

/* A vector of f->aux numbers [x, y(, z)] (metres, or what the doc says),
 * each in [f->min, f->max]. */
static WbStatus bind_vec(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    char name[300];
    wb_schema_field_name(b, f->key, name, sizeof name);
    if (v->kind != WB_NODE_SEQ || v->n != f->aux) {
        char found[128];
        if (v->kind == WB_NODE_SEQ)
            snprintf(found, sizeof found, "%zu numbers", v->n);
        else
            wb_node_describe(v, found, sizeof found);
        return wb_node_error(b->err, v, "%s expects a list of %zu numbers, found %s", name,
                             f->aux, found);
    }
    const WbField num = {.key = f->key, .type = WB_FIELD_NUMBER, .min = f->min, .max = f->max};
    double tmp[3];
    for (size_t i = 0; i < f->aux; i++) {
        WbStatus st = wb_schema_bind_field(&num, v->items[i], &tmp[i], b);
        if (st)
            return st;
    }
    memcpy(RAT(base, f->offset, double), tmp, f->aux * sizeof *tmp);
    return WB_OK;
}

static void print_doubles(FILE *out, const double *x, size_t n, int indent)
{
    if (indent >= 0)
        fputc(' ', out);
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", out);
        wb_schema_print_number(out, x[i]);
    }
    fputc(']', out);
    if (indent >= 0)
        fputc('\n', out);
}

static void print_vec(const WbField *f, const void *base, FILE *out, int indent)
{
    print_doubles(out, RCAT(base, f->offset, double), f->aux, indent);
}

/* camera.eye: a point, or null = orbit around the target. */
static WbStatus bind_eye(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    WbClothCameraDef *c = base;
    if (wb_node_is_null(v)) {
        c->eye_set = false;
        return WB_OK;
    }
    WbStatus st = bind_vec(f, v, base, b);
    if (!st)
        c->eye_set = true;
    return st;
}

static void print_eye(const WbField *f, const void *base, FILE *out, int indent)
{
    const WbClothCameraDef *c = base;
    if (c->eye_set) {
        print_vec(f, base, out, indent);
        return;
    }
    fputs(indent >= 0 ? " null\n" : "null", out);
}

#define VEC3(T, m, lo, hi) .type = WB_FIELD_CUSTOM, .offset = OFF(T, m), .aux = 3, .min = (lo), \
    .max = (hi), .bind = bind_vec, .print = print_vec

static void cloth_pin_init(void *elem) { wb_cloth_pin_default(elem); }
static void cloth_sphere_init(void *elem) { wb_cloth_sphere_default(elem); }
static void cloth_box_init(void *elem) { wb_cloth_box_default(elem); }

static const WbField cloth_pin_fields[] = {
    {.key = "name", .type = WB_FIELD_STRING, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbClothPinDef, name), .aux = WB_NAME_MAX, .def = "",
     .doc = "name a timeline `release` uses"},
    {.key = "i", .type = WB_FIELD_INT, .offset = OFF(WbClothPinDef, i),
     .min = -WB_CLOTH_MAX_GRID_SCENE, .max = WB_CLOTH_MAX_GRID_SCENE - 1, .def = "0",
     .doc = "column (along the width, 0 = left edge; -1 = the last)"},
    {.key = "j", .type = WB_FIELD_INT, .offset = OFF(WbClothPinDef, j),
     .min = -WB_CLOTH_MAX_GRID_SCENE, .max = WB_CLOTH_MAX_GRID_SCENE - 1, .def = "0",
     .doc = "row (along the height, 0 = top edge; -1 = the last)"},
};
static const WbSchema cloth_pin_schema = {FIELDS(cloth_pin_fields),
                                          .elem_size = sizeof(WbClothPinDef),
                                          .init = cloth_pin_init};

static const WbField cloth_sphere_fields[] = {
    {.key = "centre", VEC3(WbClothSphereDef, centre, -WORLD_MAX, WORLD_MAX),
     .type_name = "[x, y, z] in metres", .def = "[0, 1, 0]", .doc = "centre of the sphere"},
    {.key = "radius", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbClothSphereDef, radius), .min = 0, .max = 100, .def = "0.3",
     .doc = "radius, metres"},
    {.key = "colour", .type = WB_FIELD_COLOR, .offset = OFF(WbClothSphereDef, colour),
     .def = "\"#8c94a3\"", .doc = "surface colour"},
};
static const WbSchema cloth_sphere_schema = {FIELDS(cloth_sphere_fields),
                                             .elem_size = sizeof(WbClothSphereDef),
                                             .init = cloth_sphere_init};

static const WbField cloth_box_fields[] = {
    {.key = "centre", VEC3(WbClothBoxDef, centre, -WORLD_MAX, WORLD_MAX),
     .type_name = "[x, y, z] in metres", .def = "[0, 0.25, 0]", .doc = "centre of the box"},
    {.key = "size", VEC3(WbClothBoxDef, size, 1e-4, 100), .type_name = "[x, y, z] in metres",
     .def = "[0.5, 0.5, 0.5]", .doc = "full extents along x, y, z (axis aligned)"},
    {.key = "colour", .type = WB_FIELD_COLOR, .offset = OFF(WbClothBoxDef, colour),
     .def = "\"#8c94a3\"", .doc = "surface colour"},
};
static const WbSchema cloth_box_schema = {FIELDS(cloth_box_fields),
                                          .elem_size = sizeof(WbClothBoxDef),
                                          .init = cloth_box_init};

static const WbField cloth_body_fields[] = {
    {.key = "at", VEC3(WbClothBodyDef, at, -WORLD_MAX, WORLD_MAX),
     .type_name = "[x, y, z] in metres", .def = "[0, 0, 0]",
     .doc = "floor point under the dress form's axis"},
    {.key = "scale", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbClothBodyDef, scale), .min = 0, .max = 10, .def = "1",
     .doc = "size of the 1.7 m form (hips 0.95 m, shoulders 1.5 m)"},
    {.key = "colour", .type = WB_FIELD_COLOR, .offset = OFF(WbClothBodyDef, colour),
     .def = "\"#d8cfc4\"", .doc = "colour of the form and its stand"},
};
static const WbSchema cloth_body_schema = {FIELDS(cloth_body_fields)};

static const WbField cloth_wind_fields[] = {
    {.key = "strength", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothWindDef, strength),
     .min = 0, .max = 1000, .def = "0",
     .doc = "pressure, N/m^2; acceleration = strength * wind_response / weight * gust"},
    {.key = "direction", VEC3(WbClothWindDef, direction, -1e3, 1e3),
     .type_name = "[x, y, z]", .def = "[1, 0, 0]", .doc = "where the wind blows (normalized)"},
    {.key = "bias", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothWindDef, bias), .min = -10,
     .max = 10, .def = "1",
     .doc = "mean gust factor: gust = bias + 0.6 sin(2.1t + 7.5y) + 0.4 sin(0.7t + 4x)"},
};

static WbStatus cloth_wind_check(void *base, const WbNode *map, WbBind *b)
{
    const WbClothWindDef *w = base;
    if (w->direction[0] == 0 && w->direction[1] == 0 && w->direction[2] == 0)
        return wb_node_error(b->err, wb_node_get(map, "direction", NULL) ?
                             wb_node_get(map, "direction", NULL) : map,
                             "'%s.direction' must not be [0, 0, 0]", b->path);
    return WB_OK;
}
static const WbSchema cloth_wind_schema = {FIELDS(cloth_wind_fields), .check = cloth_wind_check};

static const WbField cloth_camera_fields[] = {
    {.key = "target", VEC3(WbClothCameraDef, target, -WORLD_MAX, WORLD_MAX),
     .type_name = "[x, y, z] in metres", .def = "[0, 1, 0]", .doc = "the point looked at"},
    {.key = "yaw", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothCameraDef, yaw), .min = -360,
     .max = 360, .def = "25", .doc = "orbit: degrees around y; 0 looks from +z, 90 from +x"},
    {.key = "pitch", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothCameraDef, pitch),
     .min = -89, .max = 89, .def = "15", .doc = "orbit: degrees above the horizon"},
    {.key = "distance", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbClothCameraDef, distance), .min = 0, .max = WORLD_MAX, .def = "4.2",
     .doc = "orbit: metres from the target"},
    {.key = "fov", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN | WB_FIELD_MAX_OPEN,
     .offset = OFF(WbClothCameraDef, fov), .min = 0, .max = 180, .def = "40",
     .doc = "vertical field of view, degrees"},
    {.key = "eye", .type = WB_FIELD_CUSTOM, .offset = OFF(WbClothCameraDef, eye), .aux = 3,
     .min = -WORLD_MAX, .max = WORLD_MAX, .bind = bind_eye, .print = print_eye,
     .type_name = "[x, y, z] in metres | null", .def = "null",
     .doc = "camera position looking at target; null = the orbit (yaw, pitch, distance)"},
};

static WbStatus cloth_camera_check(void *base, const WbNode *map, WbBind *b)
{
    const WbClothCameraDef *c = base;
    const WbNode *at = wb_node_get(map, "eye", NULL);
    if (c->eye_set && at && c->eye[0] == c->target[0] && c->eye[1] == c->target[1] &&
        c->eye[2] == c->target[2])
        return wb_node_error(b->err, at, "'%s.eye' is the target; the camera needs a direction",
                             b->path);
    return WB_OK;
}
static const WbSchema cloth_camera_schema = {FIELDS(cloth_camera_fields),
                                             .check = cloth_camera_check};

static WbStatus cloth_fabric_after(void *base, const WbNode *value, WbBind *b)
{
    (void)value;
    (void)b;
    WbClothSceneDef *c = base;
    wb_cloth_fabric_apply(c, c->fabric);
    return WB_OK;
}

static const WbField cloth_fields[] = {
    {.key = "grid", .type = WB_FIELD_INT, .offset = OFF(WbClothSceneDef, grid), .min = 3,
     .max = WB_CLOTH_MAX_GRID_SCENE, .def = "70",
     .doc = "particles along the longer side; the other side keeps square cells"},
    {.key = "size", .type = WB_FIELD_CUSTOM, .offset = OFF(WbClothSceneDef, size), .aux = 2,
     .min = 1e-3, .max = 1000, .bind = bind_vec, .print = print_vec,
     .type_name = "[width, height] in metres", .def = "[1.4, 1.4]",
     .doc = "the sheet's extent along i and j"},
    {.key = "centre", VEC3(WbClothSceneDef, centre, -WORLD_MAX, WORLD_MAX),
     .type_name = "[x, y, z] in metres", .def = "[0, 1.95, 0]",
     .doc = "where the sheet's centre starts"},
    {.key = "layout", .type = WB_FIELD_ENUM, .offset = OFF(WbClothSceneDef, layout),
     .names = cloth_layout_names, .def = "horizontal",
     .doc = "horizontal: flat, rows along -z; vertical: hanging, rows along -y (a flag)"},
    {.key = "fabric", .type = WB_FIELD_ENUM, .flags = WB_FIELD_EARLY,
     .offset = OFF(WbClothSceneDef, fabric), .names = cloth_fabric_names,
     .after = cloth_fabric_after, .def = "silk",
     .doc = "sets the six parameters, colour, sheen and gloss; explicit keys win"},
    {.key = "stiffness", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothSceneDef, stiffness),
     .min = 0, .max = 1, .def = "0.4", .doc = "stretch resistance 0..1"},
    /* the ranges wb_fabric_validate accepts, so the loader names the place */
    {.key = "weight", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothSceneDef, weight),
     .min = 0.005, .max = 5, .def = "0.08", .doc = "areal density, kg/m^2 (divides the wind)"},
    {.key = "damping", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothSceneDef, damping),
     .min = 0.5, .max = 1, .def = "0.995", .doc = "share of the velocity kept per 1/360 s"},
    {.key = "bend_stiffness", .type = WB_FIELD_NUMBER,
     .offset = OFF(WbClothSceneDef, bend_stiffness), .min = 0, .max = 1, .def = "0.008",
     .doc = "fold resistance 0..1 (low: soft flowing folds; high: stiff creases)"},
    {.key = "friction", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothSceneDef, friction),
     .min = 0, .max = 1, .def = "0.2", .doc = "Coulomb coefficient against bodies and floor"},
    {.key = "wind_response", .type = WB_FIELD_NUMBER,
     .offset = OFF(WbClothSceneDef, wind_response), .min = 0, .max = 1, .def = "0.3",
     .doc = "share of the wind pressure the weave catches"},
    {.key = "solver", .type = WB_FIELD_ENUM, .offset = OFF(WbClothSceneDef, solver),
     .names = cloth_solver_names, .def = "pbd",
     .doc = "pbd: the reference; xpbd: compliance, stiffness independent of substeps"},
    {.key = "bending", .type = WB_FIELD_ENUM, .offset = OFF(WbClothSceneDef, bending),
     .names = cloth_bending_names, .def = "skip-one",
     .doc = "skip-one: links two particles apart; dihedral: angle at each inner edge"},
    {.key = "substeps", .type = WB_FIELD_INT, .offset = OFF(WbClothSceneDef, substeps),
     .min = 1, .max = 100, .def = "6", .doc = "substeps per 1/60 s (the fixed step)"},
    {.key = "iterations", .type = WB_FIELD_INT, .offset = OFF(WbClothSceneDef, iterations),
     .min = 1, .max = 1000, .def = "10", .doc = "constraint sweeps per substep"},
    {.key = "self_collision", .type = WB_FIELD_BOOL,
     .offset = OFF(WbClothSceneDef, self_collision), .def = "false",
     .doc = "cloth-cloth repulsion through a spatial hash"},
    {.key = "thickness", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothSceneDef, thickness),
     .min = 0, .max = 1, .def = "0",
     .doc = "self-collision distance, metres, below 3 link lengths; 0 = 0.6 link lengths"},
    {.key = "max_stretch", .type = WB_FIELD_NUMBER,
     .offset = OFF(WbClothSceneDef, max_stretch), .min = 0, .max = 10, .def = "1.12",
     .doc = "hard limit on structural links (x rest length), 0 = off or at least 1"},
    {.key = "margin", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothSceneDef, margin),
     .min = 0, .max = 1, .def = "0.008", .doc = "collision skin around bodies, metres"},
    {.key = "gravity", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothSceneDef, gravity),
     .min = -1000, .max = 1000, .def = "9.81", .doc = "m/s^2 along -y"},
    {.key = "floor", .type = WB_FIELD_BOOL, .offset = OFF(WbClothSceneDef, floor),
     .def = "true", .doc = "collide with (and draw) the floor plane"},
    {.key = "floor_y", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothSceneDef, floor_y),
     .min = -WORLD_MAX, .max = WORLD_MAX, .def = "0", .doc = "height of the floor, metres"},
    {.key = "pin", .type = WB_FIELD_ENUM, .offset = OFF(WbClothSceneDef, pin),
     .names = cloth_pin_names, .def = "none",
     .doc = "pinned set: row j = 0, its two corners, all four corners or column i = 0"},
    {.key = "pins", .type = WB_FIELD_LIST, .offset = OFF(WbClothSceneDef, pins),
     .aux = OFF(WbClothSceneDef, n_pins), .sub = &cloth_pin_schema, .def = "[]",
     .doc = "named pinned particles {name, i, j} (at most 64)"},
    {.key = "mannequin", .type = WB_FIELD_BLOCK, .flags = WB_FIELD_PRESENCE,
     .offset = OFF(WbClothSceneDef, mannequin), .aux = OFF(WbClothSceneDef, mannequin.enabled),
     .sub = &cloth_body_schema, .def = "",
     .doc = "the dress form (28 collision spheres); present = enabled"},
    {.key = "spheres", .type = WB_FIELD_LIST, .offset = OFF(WbClothSceneDef, spheres),
     .aux = OFF(WbClothSceneDef, n_spheres), .sub = &cloth_sphere_schema, .def = "[]",
     .doc = "sphere obstacles {centre, radius, colour} (at most 32)"},
    {.key = "boxes", .type = WB_FIELD_LIST, .offset = OFF(WbClothSceneDef, boxes),
     .aux = OFF(WbClothSceneDef, n_boxes), .sub = &cloth_box_schema, .def = "[]",
     .doc = "box obstacles {centre, size, colour} (at most 16)"},
    {.key = "wind", .type = WB_FIELD_BLOCK, .offset = OFF(WbClothSceneDef, wind),
     .sub = &cloth_wind_schema, .def = "", .doc = "layered-sine wind (timeline `wind` changes it)"},
    {.key = "camera", .type = WB_FIELD_BLOCK, .offset = OFF(WbClothSceneDef, camera),
     .sub = &cloth_camera_schema, .def = "", .doc = "orbit around target, or eye -> target"},
    {.key = "colour", .type = WB_FIELD_COLOR, .offset = OFF(WbClothSceneDef, colour),
     .def = "\"#b01e3c\"", .doc = "front of the cloth (set by the fabric; the back is darker)"},
    {.key = "sheen", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothSceneDef, sheen), .min = 0,
     .max = 1, .def = "0.8", .doc = "grazing-angle lustre (set by the fabric)"},
    {.key = "gloss", .type = WB_FIELD_NUMBER, .offset = OFF(WbClothSceneDef, gloss), .min = 0,
     .max = 1, .def = "0.45", .doc = "specular highlight (set by the fabric)"},
    {.key = "floor_colour", .type = WB_FIELD_COLOR, .offset = OFF(WbClothSceneDef, floor_colour),
     .def = "\"#9a968e\"", .doc = "light squares of the floor's checker (dark ones a shade less)"},
    {.key = "settle_speed", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbClothSceneDef, settle_speed), .min = 0, .max = 10, .def = "0.002",
     .doc = "below this speed (m/s) for every particle the cloth counts as still"},
};

static WbStatus cloth_check(void *base, const WbNode *map, WbBind *b)
{
    const WbClothSceneDef *c = base;
    const WbNode *at;
    int nx, ny;
    wb_cloth_scene_grid(c, &nx, &ny);
    if (c->n_pins > WB_CLOTH_SCENE_MAX_PINS && (at = wb_node_get(map, "pins", NULL)))
        return wb_node_error(b->err, at, "'cloth.pins' has %zu pins; at most %d", c->n_pins,
                             WB_CLOTH_SCENE_MAX_PINS);
    if (c->n_spheres > WB_CLOTH_SCENE_MAX_SPHERES && (at = wb_node_get(map, "spheres", NULL)))
        return wb_node_error(b->err, at, "'cloth.spheres' has %zu spheres; at most %d",
                             c->n_spheres, WB_CLOTH_SCENE_MAX_SPHERES);
    if (c->n_boxes > WB_CLOTH_SCENE_MAX_BOXES && (at = wb_node_get(map, "boxes", NULL)))
        return wb_node_error(b->err, at, "'cloth.boxes' has %zu boxes; at most %d", c->n_boxes,
                             WB_CLOTH_SCENE_MAX_BOXES);
    /* Self-collision skips particles up to two grid steps apart, so a
     * thickness of three link lengths or more pushes apart particles the
     * links hold that far apart at rest, and the sheet blows up (measured:
     * 3.4 link lengths, hundreds of m/s at grids 20 and 70). */
    if (c->self_collision && c->thickness > 0 && (at = wb_node_get(map, "thickness", NULL))) {
        double link = fmin(c->size[0] / (nx - 1), c->size[1] / (ny - 1));
        if (c->thickness >= 3.0 * link)
            return wb_node_error(b->err, at, "'cloth.thickness' %g m is 3 links or more (links "
                                 "of %.4g m at %d x %d): self-collision would push apart "
                                 "particles the links hold; use less than %.4g, or 0 for "
                                 "0.6 links", c->thickness, link, nx, ny, 3.0 * link);
    }
    /* a limit below the rest length would pull every link shorter each step */
    if (c->max_stretch > 0 && c->max_stretch < 1 && (at = wb_node_get(map, "max_stretch", NULL)))
        return wb_node_error(b->err, at, "'cloth.max_stretch' is %g; use 0 (off) or at least 1 "
                             "(times the rest length)", c->max_stretch);
    const WbNode *list = wb_node_get(map, "pins", NULL);
    for (size_t p = 0; list && list->kind == WB_NODE_SEQ && p < c->n_pins && p < list->n; p++) {
        const WbClothPinDef *pin = &c->pins[p];
        int i = pin->i < 0 ? nx + pin->i : pin->i, j = pin->j < 0 ? ny + pin->j : pin->j;
        if (i < 0 || i >= nx || j < 0 || j >= ny)
            return wb_node_error(b->err, list->items[p], "'cloth.pins[%zu]' (%d, %d) is outside "
                                 "the %d x %d grid", p, pin->i, pin->j, nx, ny);
        for (size_t q = 0; q < p; q++)
            if (!strcmp(c->pins[q].name, pin->name))
                return wb_node_error(b->err, list->items[p], "'cloth.pins[%zu]': a pin named "
                                     "'%s' already exists (pins[%zu])", p, pin->name, q);
    }
    return WB_OK;
}

/* A value the fabric produced is printed as a comment (see photo_implied). */
static bool cloth_implied(const void *base, const WbField *f)
{
    if (f->type != WB_FIELD_NUMBER && f->type != WB_FIELD_COLOR)
        return false;
    const WbClothSceneDef *c = base;
    WbClothSceneDef ref = *c;
    size_t size = f->type == WB_FIELD_NUMBER ? sizeof(double) : sizeof(WbColor);
    memset((char *)&ref + f->offset, 0xff, size);   /* NaN bits: untouched = not a fabric key */
    wb_cloth_fabric_apply(&ref, c->fabric);
    return !memcmp((const char *)&ref + f->offset, (const char *)c + f->offset, size);
}

static const WbSchema cloth_schema = {FIELDS(cloth_fields), .check = cloth_check,
                                      .implied = cloth_implied};

static const WbField cloth_release_fields[] = {
    {.key = "pin", .type = WB_FIELD_STRING, .offset = OFF(WbEvent, u.cloth_release.pin),
     .aux = WB_NAME_MAX, .def = "\"\"",
     .doc = "name of a cloth.pins entry; \"\" = every pinned particle"},
};
static const WbSchema cloth_release_schema = {FIELDS(cloth_release_fields)};

static const WbField cloth_wind_event_fields[] = {
    {.key = "strength", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.cloth_wind.strength), .min = 0, .max = 1000, .def = "",
     .doc = "new pressure, N/m^2"},
    {.key = "direction", VEC3(WbEvent, u.cloth_wind.direction, -1e3, 1e3),
     .type_name = "[x, y, z]", .def = "[1, 0, 0]", .doc = "new direction (normalized)"},
    {.key = "bias", .type = WB_FIELD_NUMBER, .offset = OFF(WbEvent, u.cloth_wind.bias),
     .min = -10, .max = 10, .def = "1", .doc = "new mean gust factor"},
    {.key = "ramp", .type = WB_FIELD_NUMBER, .offset = OFF(WbEvent, u.cloth_wind.ramp),
     .min = 0, .max = TIME_MAX, .def = "0",
     .doc = "seconds over which the wind blends from its current values to these"},
};
/* As cloth.wind: a zero direction has no way to blow (the solver would
 * quietly drop the wind, strength and all). */
static WbStatus cloth_wind_event_check(void *base, const WbNode *map, WbBind *b)
{
    const WbEvent *ev = base;
    const double *d = ev->u.cloth_wind.direction;
    if (d[0] == 0 && d[1] == 0 && d[2] == 0) {
        const WbNode *at = wb_node_get(map, "direction", NULL);
        return wb_node_error(b->err, at ? at : map, "'%s.direction' must not be [0, 0, 0]",
                             b->path);
    }
    return WB_OK;
}
static const WbSchema cloth_wind_event_schema = {FIELDS(cloth_wind_event_fields),
                                                 .check = cloth_wind_event_check};

typedef struct Action {
    const char *name;
    WbEventType type;
    const WbSchema *schema;
    unsigned kinds;      /* bit per WbKind that has this action */
    const char *doc;
} Action;

#define KIND_BIT(k) (1u << (k))

static const Action actions[] = {
    {"grab", WB_EVENT_GRAB, &grab_schema, KIND_BIT(WB_KIND_PHOTO),
     "take hold at `at`; the cursor follows `path`"},
    {"release", WB_EVENT_RELEASE, &release_schema, KIND_BIT(WB_KIND_PHOTO),
     "let go of the grab; the mesh keeps its motion"},
    {"pin", WB_EVENT_PIN, &pin_schema, KIND_BIT(WB_KIND_PHOTO),
     "hold the mesh around `at` (at most 4 at once)"},
    {"unpin", WB_EVENT_UNPIN, &unpin_schema, KIND_BIT(WB_KIND_PHOTO),
     "remove a pin by name, or all pins"},
    {"cut", WB_EVENT_CUT, &cut_schema, KIND_BIT(WB_KIND_ROPE),
     "cut one link of a rope (rope scenes); the rope falls apart there"},
    {"reseed", WB_EVENT_RESEED, &reseed_schema, KIND_BIT(WB_KIND_JIGGLE),
     "new per-bone character from `seed` (jiggle scenes); positions kept"},
    {"shake", WB_EVENT_SHAKE, &shake_schema, KIND_BIT(WB_KIND_JIGGLE),
     "random velocity kick from the same generator (jiggle scenes)"},
    {"release", WB_EVENT_CLOTH_RELEASE, &cloth_release_schema, KIND_BIT(WB_KIND_CLOTH),
     "let a named cloth pin (or every pin) go (cloth scenes); it falls from rest"},
    {"wind", WB_EVENT_CLOTH_WIND, &cloth_wind_event_schema, KIND_BIT(WB_KIND_CLOTH),
     "change the wind, at once or over `ramp` seconds (cloth scenes)"},
};
#define N_ACTIONS (sizeof actions / sizeof *actions)

static void event_init(WbEvent *ev, WbEventType type)
{
    memset(ev, 0, sizeof *ev);
    ev->type = type;
    if (type == WB_EVENT_GRAB)
        ev->u.grab.radius.automatic = true;
    else if (type == WB_EVENT_PIN)
        ev->u.pin.radius.automatic = true;
    else if (type == WB_EVENT_SHAKE)
        ev->u.shake.span = 11.0;
    else if (type == WB_EVENT_CLOTH_WIND) {
        ev->u.cloth_wind.direction[0] = 1.0;
        ev->u.cloth_wind.bias = 1.0;
    }
}

static const WbField time_field = {
    .key = "time", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_REQUIRED,
    .offset = OFF(WbEvent, time), .min = 0, .max = TIME_MAX, .def = "",
    .doc = "when the event happens, seconds from the start"};

/* What the cross-event rules need to know of one bound event. */
typedef struct EventSrc {
    WbEvent ev;
    const WbNode *action_key;
} EventSrc;

static void free_events(EventSrc *es, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (es[i].ev.type == WB_EVENT_GRAB)
            free(es[i].ev.u.grab.path);
    free(es);
}

/* One timeline item: `time` plus exactly one action key. */
static WbStatus bind_event(const WbNode *item, size_t index, unsigned kind_bit, EventSrc *out,
                           WbBind *b)
{
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

    event_init(&out->ev, act->type);
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
        }
    }
    return WB_OK;
}

static WbStatus bind_timeline(const WbField *f, const WbNode *v, void *base, WbBind *b)
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
        st = bind_event(v->items[bound], bound, KIND_BIT(s->kind), &es[bound], b);
    b->path[0] = '\0';
    if (st) {
        free_events(es, bound);
        return st;
    }
    /* Stable insertion sort by time: events at the same time keep file order. */
    for (size_t i = 1; i < v->n; i++) {
        EventSrc e = es[i];
        size_t j = i;
        while (j > 0 && es[j - 1].ev.time > e.ev.time) {
            es[j] = es[j - 1];
            j--;
        }
        es[j] = e;
    }
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
static void print_timeline(const WbField *f, const void *base, FILE *out, int indent)
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

static void timeline_keys(const WbField *f, const char *path, WbKeyFn fn, void *ud)
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

/* ---- the document ---- */

static WbStatus version_after(void *base, const WbNode *value, WbBind *b)
{
    const WbScene *s = base;
    if (s->version != WB_SCENE_VERSION)
        return wb_node_error(b->err, value,
                             "scene format version %d is not supported; this build reads "
                             "version %d", s->version, WB_SCENE_VERSION);
    return WB_OK;
}

static bool photo_shown(const void *base)
{
    return ((const WbScene *)base)->kind == WB_KIND_PHOTO;
}

static bool rope_shown(const void *base)
{
    return ((const WbScene *)base)->kind == WB_KIND_ROPE;
}

static bool jiggle_shown(const void *base)
{
    return ((const WbScene *)base)->kind == WB_KIND_JIGGLE;
}

static bool cloth_shown(const void *base)
{
    return ((const WbScene *)base)->kind == WB_KIND_CLOTH;
}

static const WbField scene_fields[] = {
    {.key = "wobble", .type = WB_FIELD_INT, .flags = WB_FIELD_REQUIRED | WB_FIELD_EARLY,
     .offset = OFF(WbScene, version), .min = 0, .max = 1000000, .after = version_after,
     .type_name = "integer: 1",
     .def = "", .doc = "scene format version; this build reads 1"},
    {.key = "kind", .type = WB_FIELD_ENUM, .flags = WB_FIELD_REQUIRED | WB_FIELD_EARLY,
     .offset = OFF(WbScene, kind), .names = kind_names, .def = "",
     .doc = "what is simulated (photo, rope, jiggle and cloth in this build)"},
    {.key = "seed", .type = WB_FIELD_U32, .offset = OFF(WbScene, seed), .min = 0,
     .max = 4294967295.0, .def = "0", .doc = "seed of every random choice"},
    {.key = "output", .type = WB_FIELD_BLOCK, .offset = OFF(WbScene, output),
     .sub = &output_schema, .def = "", .doc = "the frames: size, rate, length, background"},
    {.key = "photo", .type = WB_FIELD_BLOCK, .offset = OFF(WbScene, photo),
     .sub = &photo_schema, .shown = photo_shown, .def = "",
     .doc = "the photo mesh and its springs (kind photo)"},
    {.key = "rope", .type = WB_FIELD_BLOCK, .offset = OFF(WbScene, rope),
     .sub = &rope_schema, .shown = rope_shown, .def = "",
     .doc = "ropes, obstacles and the world view (kind rope)"},
    {.key = "jiggle", .type = WB_FIELD_BLOCK, .offset = OFF(WbScene, jiggle),
     .sub = &jiggle_schema, .shown = jiggle_shown, .def = "",
     .doc = "spring bones, weights, driver and colliders (kind jiggle)"},
    {.key = "cloth", .type = WB_FIELD_BLOCK, .offset = OFF(WbScene, cloth),
     .sub = &cloth_schema, .shown = cloth_shown, .def = "",
     .doc = "the sheet, its fabric, pins, bodies, wind and camera (kind cloth)"},
    {.key = "timeline", .type = WB_FIELD_CUSTOM, .bind = bind_timeline,
     .print = print_timeline, .keys = timeline_keys, .type_name = "list of events",
     .def = "[]", .doc = "events {time, ACTION: {...}}, one action each, stored by time"},
};

/* A rope scene needs ropes, and every cut must name a link that exists and
 * is not cut twice; errors point at the event. */
static WbStatus rope_scene_check(const WbScene *s, const WbNode *map, WbBind *b)
{
    const WbRopeSceneDef *r = &s->rope;
    size_t at_photo;
    if (wb_node_get(map, "photo", &at_photo))
        return wb_node_error(b->err, map->keys[at_photo],
                             "'photo' is a block of kind photo; this scene is kind rope");
    if (r->n_ropes == 0) {
        const WbNode *at = wb_node_get(map, "rope", NULL);
        return wb_node_error(b->err, at ? at : map,
                             "kind rope needs at least one rope in 'rope.ropes'");
    }
    for (size_t i = 0; i < s->n_events; i++) {
        const WbEvent *ev = &s->events[i];
        if (ev->type != WB_EVENT_CUT)
            continue;
        int rope = ev->u.cut.rope, link = ev->u.cut.link;
        if ((size_t)rope >= r->n_ropes)
            return wb_source_error(b->err, map->src, ev->src_line, ev->src_col,
                                   "cut at %g s: no rope %d (the scene has ropes 0..%zu)",
                                   ev->time, rope, r->n_ropes - 1);
        int links = r->ropes[rope].nodes - 1;
        if (link >= links)
            return wb_source_error(b->err, map->src, ev->src_line, ev->src_col,
                                   "cut at %g s: rope %d has links 0..%d, not %d", ev->time,
                                   rope, links - 1, link);
        for (size_t j = 0; j < i; j++) {
            const WbEvent *e = &s->events[j];
            if (e->type == WB_EVENT_CUT && e->u.cut.rope == rope && e->u.cut.link == link)
                return wb_source_error(b->err, map->src, ev->src_line, ev->src_col,
                                       "cut at %g s: link %d of rope %d is already cut (at "
                                       "line %d)", ev->time, link, rope, e->src_line);
        }
    }
    return WB_OK;
}

/* A cloth scene has no photo block, and every `release` names a pin of
 * cloth.pins (or "" for all); errors point at the event. */
static WbStatus cloth_scene_check(const WbScene *s, const WbNode *map, WbBind *b)
{
    const WbClothSceneDef *c = &s->cloth;
    size_t at_photo;
    if (wb_node_get(map, "photo", &at_photo))
        return wb_node_error(b->err, map->keys[at_photo],
                             "'photo' is a block of kind photo; this scene is kind cloth");
    for (size_t i = 0; i < s->n_events; i++) {
        const WbEvent *ev = &s->events[i];
        if (ev->type != WB_EVENT_CLOTH_RELEASE || !ev->u.cloth_release.pin[0])
            continue;
        size_t p = 0;
        while (p < c->n_pins && strcmp(c->pins[p].name, ev->u.cloth_release.pin))
            p++;
        if (p == c->n_pins)
            return wb_source_error(b->err, map->src, ev->src_line, ev->src_col,
                                   "release at %g s: no pin named '%s' in 'cloth.pins'",
                                   ev->time, ev->u.cloth_release.pin);
    }
    return WB_OK;
}

static WbStatus scene_check(void *base, const WbNode *map, WbBind *b)
{
    const WbScene *s = base;
    if (s->kind == WB_KIND_PHOTO && !wb_node_get(map, "photo", NULL))
        return wb_node_error(b->err, map,
                             "missing required key 'photo' (kind photo needs a photo block "
                             "with an image)");
    if (s->kind == WB_KIND_ROPE)
        return rope_scene_check(s, map, b);
    if (s->kind == WB_KIND_CLOTH)
        return cloth_scene_check(s, map, b);
    return WB_OK;
}

static const WbSchema scene_schema = {FIELDS(scene_fields),
                                      .check = scene_check};

/* ------------------------------------------------------------ load/print */

static void note_place(const WbNode *v, WbPlace *at)
{
    if (v)
        *at = (WbPlace){v->line, v->col, v->src && v->src->is_set};
}

static WbStatus load_text(const char *name, const char *text, size_t len,
                          const char *const *options, const char *const *sets, size_t n_sets,
                          WbScene *out, WbError *err)
{
    wb_scene_default(out);
    snprintf(out->path, sizeof out->path, "%s", name);
    WbSource src = {.name = name, .text = text, .len = len};
    WbSource *set_src = n_sets ? calloc(n_sets, sizeof *set_src) : NULL;
    if (n_sets && !set_src)
        return wb_error_set(err, WB_E_IO, "out of memory");

    WbNode *root = NULL;
    WbStatus st = wb_node_parse(&src, text, len, 0, &root, err);
    if (!st && (!root || wb_node_is_null(root)))
        st = wb_source_error(err, &src, 1, 1,
                             "empty scene: expected a mapping that starts with 'wobble: 1'");
    if (!st && root->kind != WB_NODE_MAP) {
        char found[128];
        wb_node_describe(root, found, sizeof found);
        st = wb_node_error(err, root,
                           "a scene is a mapping of keys (wobble, kind, output, ...), found %s",
                           found);
    }
    for (size_t i = 0; !st && i < n_sets; i++) {
        set_src[i] = (WbSource){"--set", sets[i], strlen(sets[i]), true,
                                options ? options[i] : NULL};
        st = wb_node_override(&root, &set_src[i], err);
    }
    if (!st) {
        /* The folder of the scene file, which relative paths start from. */
        char dir[WB_PATH_MAX] = "";
        const char *slash = strrchr(name, '/');
        if (slash && (size_t)(slash - name) < sizeof dir) {
            size_t n = slash == name ? 1 : (size_t)(slash - name);
            memcpy(dir, name, n);
            dir[n] = '\0';
        }
        WbBind b = {.err = err, .dir = dir};
        st = wb_schema_bind(&scene_schema, root, out, &b);
    }
    if (!st) {
        /* The run decodes these pictures: it names the key's place when
         * one cannot be read. */
        const WbNode *photo = wb_node_get(root, "photo", NULL);
        note_place(wb_node_get(photo, "image", NULL), &out->photo_image_at);
        note_place(wb_node_get(photo, "mask", NULL), &out->photo_mask_at);
        note_place(wb_node_get(wb_node_get(root, "jiggle", NULL), "weights", NULL),
                   &out->jiggle_weights_at);
    }
    wb_node_free(root);
    free(set_src);
    if (st)
        wb_scene_free(out);
    return st;
}

WbStatus wb_scene_load_string_from(const char *name, const char *text, const char *const *sets,
                                   const char *const *options, size_t n_sets, WbScene *out,
                                   WbError *err)
{
    return load_text(name, text, strlen(text), options, sets, n_sets, out, err);
}

WbStatus wb_scene_load_string(const char *name, const char *text, const char *const *sets,
                              size_t n_sets, WbScene *out, WbError *err)
{
    return wb_scene_load_string_from(name, text, sets, NULL, n_sets, out, err);
}

/* A scene is a page or two of text; anything past this is not one (and a
 * device such as /dev/zero would otherwise be read until memory ran out). */
#define SCENE_MAX_BYTES (16u << 20)

/* The whole of f; NULL with errno set on failure (EFBIG past
 * SCENE_MAX_BYTES).  Reading stops early at a NUL byte: the caller refuses
 * such a file as not text, however long it is. */
static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 1 << 14, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        bool nul = memchr(buf + n, '\0', got) != NULL;
        n += got;
        if (n < cap - 1 || nul)
            break;
        if (cap >= SCENE_MAX_BYTES) {
            int c = fgetc(f);
            if (c == EOF)
                break;
            free(buf);
            errno = EFBIG;
            return NULL;
        }
        char *more = realloc(buf, cap * 2);
        if (!more) {
            free(buf);
            errno = ENOMEM;
            return NULL;
        }
        buf = more;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        return NULL;
    }
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

WbStatus wb_scene_load(const char *path, const char *const *sets, size_t n_sets, WbScene *out,
                       WbError *err)
{
    return wb_scene_load_from(path, sets, NULL, n_sets, out, err);
}

WbStatus wb_scene_load_from(const char *path, const char *const *sets, const char *const *options,
                            size_t n_sets, WbScene *out, WbError *err)
{
    wb_scene_default(out);
    bool is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return wb_error_set(err, WB_E_INPUT, "cannot open scene '%s': %s", path, strerror(errno));
    size_t len = 0;
    errno = 0;
    char *text = read_all(f, &len);
    int read_errno = errno;
    if (!is_stdin)
        fclose(f);
    if (!text && read_errno == EFBIG)
        return wb_error_set(err, WB_E_INPUT, "scene '%s' is not a scene file (%u MiB or more)",
                            path, SCENE_MAX_BYTES >> 20);
    if (!text && read_errno == EISDIR)
        return wb_error_set(err, WB_E_INPUT, "cannot read scene '%s': %s", path,
                            strerror(read_errno));
    if (!text)
        return wb_error_set(err, WB_E_IO, "cannot read scene '%s': %s", path,
                            strerror(read_errno ? read_errno : EIO));
    if (memchr(text, '\0', len)) {
        free(text);
        return wb_error_set(err, WB_E_INPUT, "scene '%s' is not a text file (it contains NUL bytes)",
                            path);
    }
    WbStatus st =
        load_text(is_stdin ? "<stdin>" : path, text, len, options, sets, n_sets, out, err);
    if (is_stdin)
        snprintf(out->path, sizeof out->path, "-");
    free(text);
    return st;
}

void wb_scene_print(const WbScene *s, FILE *f)
{
    wb_schema_print(&scene_schema, s, f, 0, false);
}

void wb_scene_keys(void (*cb)(const char *path, const char *type, const char *def,
                              const char *doc, void *ud),
                   void *ud)
{
    wb_schema_keys(&scene_schema, "", cb, ud);
}

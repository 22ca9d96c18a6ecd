/* keys_photo.c — the photo block (WbPhotoDef) and the photo timeline's
 * actions: grab (with its cursor path), release, pin and unpin.  Which pins
 * and grabs may be active at once is a rule of the whole timeline
 * (keys_timeline.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene/keys.h"
#include "scene/scene_load.h"

/* WB_FIELD_ENUM stores through an int lvalue (see keys_scene.c). */
_Static_assert(sizeof(WbIntegrator) == sizeof(int), "enum size");
_Static_assert(sizeof(WbPreset) == sizeof(int), "enum size");
_Static_assert(sizeof(WbPhotoFill) == sizeof(int), "enum size");
_Static_assert(sizeof(WbPhotoEdge) == sizeof(int), "enum size");

static const char *const integrator_names[] = {"euler", "exact", NULL};
static const char *const preset_names[] = {"none", "spring", "rubber", "jelly", NULL};

/* A drag may leave the image; how far is a sanity bound, not a rule. */
#define DRAG_REACH 10.0

static const WbField segment_fields[] = {
    {.key = "at", .type = WB_FIELD_POINT, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbSegmentDef, at), .min = 0, .max = 1, .def = "",
     .doc = "seed point of the flood fill"},
    {.key = "tolerance", .type = WB_FIELD_NUMBER, .offset = OFF(WbSegmentDef, tolerance),
     .min = 0, .max = 1, .def = "0.15",
     .doc = "largest RGB distance (Euclidean / sqrt 3) from the seed colour"},
};
static const WbSchema segment_schema = {FIELDS(segment_fields)};

/* photo.fill and photo.edge: one of the names (an enum stored at
 * f->offset, names[i] = value i) or a colour in output.background's syntax
 * (stored at f->aux; the enum is then the value after the last name). */
static const char *const fill_names[] = {"inpaint", "none", NULL};
static const char *const edge_names[] = {"clamp", "mirror", "transparent", NULL};

static int name_count(const char *const *names)
{
    int n = 0;
    while (names[n])
        n++;
    return n;
}

static WbStatus bind_name_or_color(const WbField *f, const WbNode *v, void *base, WbBind *b)
{
    int *which = (int *)((char *)base + f->offset);
    if (v->kind == WB_NODE_SCALAR && !wb_node_is_null(v) && v->text[0] != '#') {
        for (int i = 0; f->names[i]; i++)
            if (!strcmp(v->text, f->names[i])) {
                *which = i;
                return WB_OK;
            }
        char name[300], found[128], what[200] = "";
        wb_schema_field_name(b, f->key, name, sizeof name);
        wb_node_describe(v, found, sizeof found);
        for (int i = 0; f->names[i]; i++) {
            strcat(what, f->names[i]);
            strcat(what, f->names[i + 1] ? ", " : " or a colour");
        }
        const char *syntax = "(\"#rrggbb\", \"#rrggbbaa\", [r, g, b] or [r, g, b, a])";
        const char *sug = wb_schema_suggest(v->text, f->names);
        if (sug)
            return wb_node_error(b->err, v, "%s expects %s %s, found %s (did you mean '%s'?)",
                                 name, what, syntax, found, sug);
        return wb_node_error(b->err, v, "%s expects %s %s, found %s", name, what, syntax, found);
    }
    WbField color = {.key = f->key, .type = WB_FIELD_COLOR, .offset = f->aux};
    WbStatus st = wb_schema_bind_field(&color, v, base, b);
    if (!st)
        *which = name_count(f->names);
    return st;
}

static void print_name_or_color(const WbField *f, const void *base, FILE *out, int indent)
{
    int which = *(const int *)((const char *)base + f->offset);
    if (indent >= 0)
        fputc(' ', out);
    if (which == name_count(f->names)) {
        WbField color = {.key = f->key, .type = WB_FIELD_COLOR, .offset = f->aux};
        wb_schema_print_value(&color, base, out);
    } else {
        fputs(f->names[which], out);
    }
    if (indent >= 0)
        fputc('\n', out);
}

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
     .doc = "the picture (PNG, JPEG, WebP, BMP, TIFF; EXIF orientation honoured), or an animated GIF, WebP or PNG or a video, which plays at its own rate and loops; relative to the scene file's folder; - = standard input"},
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
    {.key = "fold_limit", .type = WB_FIELD_BOOL, .offset = OFF(WbPhotoDef, fold_limit),
     .def = "true",
     .doc = "keep the mesh from folding over itself: motion that would take a triangle below 2% of its rest area is taken back, so no triangle ever turns over; false = the springs alone"},
    {.key = "mask", .type = WB_FIELD_PATH, .offset = OFF(WbPhotoDef, mask), .aux = WB_PATH_MAX,
     .def = "\"\"", .doc = "grey or alpha image (PNG, or any format photo.image reads) cutting out the object that moves over the still background (its grey level is the object's alpha); \"\" = none"},
    {.key = "segment", .type = WB_FIELD_BLOCK, .flags = WB_FIELD_PRESENCE,
     .offset = OFF(WbPhotoDef, segment), .aux = OFF(WbPhotoDef, segment.enabled),
     .sub = &segment_schema, .def = "",
     .doc = "flood-fill mask from a seed point; present = enabled; excludes mask"},
    {.key = "fill", .type = WB_FIELD_CUSTOM, .bind = bind_name_or_color,
     .print = print_name_or_color, .offset = OFF(WbPhotoDef, fill),
     .aux = OFF(WbPhotoDef, fill_color), .names = fill_names,
     .type_name = "inpaint | none | colour", .def = "inpaint",
     .doc = "what the still background shows under the masked object: inpaint = continued from its surroundings (computed once), none = the photo (the object stays behind), or a colour"},
    {.key = "edge", .type = WB_FIELD_CUSTOM, .bind = bind_name_or_color,
     .print = print_name_or_color, .offset = OFF(WbPhotoDef, edge),
     .aux = OFF(WbPhotoDef, edge_color), .names = edge_names,
     .type_name = "clamp | mirror | transparent | colour", .def = "clamp",
     .doc = "what shows beyond the photo's border where it is pulled inwards: clamp = its border pixels continue, mirror = the photo reflected, transparent = nothing (the output's background), or a colour"},
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

const WbSchema wb_keys_photo = {FIELDS(photo_fields),
                               .check = photo_check, .implied = photo_implied};

/* ---- timeline actions ---- */

/* A grab's cursor path: keyframes in image fractions (or pixels). */
static const WbField key_fields[] = {
    {.key = "time", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbKey, time), .min = 0, .max = TIME_MAX, .def = "",
     .doc = "absolute time (s) the cursor reaches `to`; after the grab and the previous key"},
    {.key = "to", .type = WB_FIELD_POINT, .flags = WB_FIELD_REQUIRED, .offset = OFF(WbKey, to),
     .min = -DRAG_REACH, .max = DRAG_REACH, .def = "", .doc = "cursor position"},
    KEY_EASE_FIELD,
};
static const WbSchema key_schema = {FIELDS(key_fields),
                                    .elem_size = sizeof(WbKey), .init = wb_keys_key_init};

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

static void grab_init(void *base)
{
    ((WbEvent *)base)->u.grab.radius.automatic = true;
}

const WbSchema wb_keys_grab = {FIELDS(grab_fields), .init = grab_init, .check = grab_check};

const WbSchema wb_keys_release = {.fields = NULL, .n = 0};

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

static void pin_init(void *base)
{
    ((WbEvent *)base)->u.pin.radius.automatic = true;
}

const WbSchema wb_keys_pin = {FIELDS(pin_fields), .init = pin_init};

static const WbField unpin_fields[] = {
    {.key = "name", .type = WB_FIELD_STRING, .offset = OFF(WbEvent, u.unpin.name),
     .aux = WB_NAME_MAX, .def = "\"\"", .doc = "the pin to remove; \"\" = every pin"},
};
const WbSchema wb_keys_unpin = {FIELDS(unpin_fields)};

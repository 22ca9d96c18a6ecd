/* keys_scene.c — the document: the format version, the kind, the seed, the
 * output block, one block per kind (printed only for the scene's own kind)
 * and the timeline; and the rules that span blocks. */
#include <stdio.h>

#include "scene/keys.h"

/* WB_FIELD_ENUM stores through an int lvalue (valid for an enum whose
 * compatible type is int or unsigned int); each keys_*.c asserts this for
 * the enums its tables store. */
_Static_assert(sizeof(WbKind) == sizeof(int), "enum size");
_Static_assert(sizeof(WbFit) == sizeof(int), "enum size");

static const char *const kind_names[] = {"photo", "jiggle", "cloth", "rope", NULL};
static const char *const fit_names[] = {"fit", "fill", NULL};

/* ---- output ---- */

static const WbField motion_blur_fields[] = {
    {.key = "samples", .type = WB_FIELD_INT, .offset = OFF(WbMotionBlurDef, samples), .min = 1,
     .max = 64, .def = "1",
     .doc = "sub-frame states averaged per frame, in linear light; 1 = no blur"},
    {.key = "shutter", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbMotionBlurDef, shutter), .min = 0, .max = 1, .def = "0.5",
     .doc = "fraction of the frame interval the shutter is open, ending at the frame's time (0.5 = 180 degrees)"},
};
static const WbSchema motion_blur_schema = {FIELDS(motion_blur_fields)};

static const WbField output_fields[] = {
    {.key = "width", .type = WB_FIELD_INT, .offset = OFF(WbOutputDef, width), .min = 0,
     .max = 16384, .def = "0", .doc = "frame width in pixels; 0 = derived from the height and the content's aspect (the photo's, else the view's), rounded to even; both 0: the photo's own size, else 640 wide"},
    {.key = "height", .type = WB_FIELD_INT, .offset = OFF(WbOutputDef, height), .min = 0,
     .max = 16384, .def = "0", .doc = "frame height in pixels; 0 = derived from the width and the content's aspect, rounded to even"},
    {.key = "scale", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbOutputDef, scale), .min = 0, .max = 8, .def = "1",
     .doc = "factor on the frame size (as --scale); a scaled side is rounded to even, at least 2"},
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
    {.key = "preroll", .type = WB_FIELD_NUMBER, .offset = OFF(WbOutputDef, preroll), .min = 0,
     .max = 3600, .def = "0",
     .doc = "seconds simulated, drivers and timeline running, before frame 0 (frame f shows preroll + f/fps)"},
    {.key = "background", .type = WB_FIELD_COLOR, .flags = WB_FIELD_TRANSPARENT,
     .offset = OFF(WbOutputDef, background), .aux = OFF(WbOutputDef, transparent),
     .def = "\"#000000\"",
     .doc = "\"#rrggbb\", \"#rrggbbaa\", [r, g, b(, a)] in 0..1, or transparent"},
    {.key = "fit", .type = WB_FIELD_ENUM, .offset = OFF(WbOutputDef, fit), .names = fit_names,
     .def = "fit", .doc = "fit: whole image visible, letterboxed; fill: frame covered, cropped"},
    {.key = "loop_count", .type = WB_FIELD_INT, .offset = OFF(WbOutputDef, loop_count), .min = 0,
     .max = 65535, .def = "0",
     .doc = "GIF, WebP and APNG: how many times the animation plays; 0 = forever (as --loop-count)"},
    /* seamless loops and ping-pong (run/loop.h, io/sink.c) */
    {.key = "loop", .type = WB_FIELD_BOOL, .offset = OFF(WbOutputDef, loop), .def = "false",
     .doc = "seamless loop: pre-roll until the periodic drivers' motion repeats, then render exactly loop_periods periods (replaces preroll and duration)"},
    {.key = "loop_periods", .type = WB_FIELD_INT, .offset = OFF(WbOutputDef, loop_periods),
     .min = 1, .max = 1000, .def = "1", .doc = "with loop: how many common periods of the drivers are rendered"},
    {.key = "pingpong", .type = WB_FIELD_BOOL, .offset = OFF(WbOutputDef, pingpong),
     .def = "false", .doc = "play the frames forward, then backward without repeating the turn frames (N frames: 2N-2)"},
    {.key = "motion_blur", .type = WB_FIELD_BLOCK, .offset = OFF(WbOutputDef, motion_blur),
     .sub = &motion_blur_schema, .def = "",
     .doc = "average sub-frame states over the shutter of each frame (samples, shutter)"},
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
     .sub = &wb_keys_photo, .shown = photo_shown, .def = "",
     .doc = "the photo mesh and its springs (kind photo)"},
    {.key = "rope", .type = WB_FIELD_BLOCK, .offset = OFF(WbScene, rope),
     .sub = &wb_keys_rope, .shown = rope_shown, .def = "",
     .doc = "ropes, obstacles and the world view (kind rope)"},
    {.key = "jiggle", .type = WB_FIELD_BLOCK, .offset = OFF(WbScene, jiggle),
     .sub = &wb_keys_jiggle, .shown = jiggle_shown, .def = "",
     .doc = "spring bones, weights, driver and colliders (kind jiggle)"},
    {.key = "cloth", .type = WB_FIELD_BLOCK, .offset = OFF(WbScene, cloth),
     .sub = &wb_keys_cloth, .shown = cloth_shown, .def = "",
     .doc = "the sheet, its fabric, pins, bodies, wind and camera (kind cloth)"},
    {.key = "timeline", .type = WB_FIELD_CUSTOM, .bind = wb_keys_timeline_bind,
     .print = wb_keys_timeline_print, .keys = wb_keys_timeline_keys, .type_name = "list of events",
     .def = "[]", .doc = "events {time, ACTION: {...}}, one action each, stored by time"},
};

static WbStatus scene_check(void *base, const WbNode *map, WbBind *b)
{
    const WbScene *s = base;
    if (s->kind == WB_KIND_PHOTO && !wb_node_get(map, "photo", NULL))
        return wb_node_error(b->err, map,
                             "missing required key 'photo' (kind photo needs a photo block "
                             "with an image)");
    if (s->kind == WB_KIND_ROPE)
        return wb_keys_rope_scene_check(s, map, b);
    if (s->kind == WB_KIND_CLOTH)
        return wb_keys_cloth_scene_check(s, map, b);
    return WB_OK;
}

const WbSchema wb_keys_scene = {FIELDS(scene_fields), .check = scene_check};

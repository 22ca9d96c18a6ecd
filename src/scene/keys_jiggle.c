/* keys_jiggle.c — the jiggle block (WbJiggleSceneDef: view and shape, the
 * tissue, weights, colliders, the driver, the camera) and the jiggle
 * timeline's actions, reseed and shake.  Jiggle points are world units
 * (y up): pixel points are refused. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "scene/keys.h"

/* WB_FIELD_ENUM stores through an int lvalue (see keys_scene.c). */
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
    KEY_EASE_FIELD,
};
static const WbSchema jiggle_key_schema = {FIELDS(jiggle_key_fields),
                                           .elem_size = sizeof(WbKey), .init = wb_keys_key_init,
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
    {.key = "period", .type = WB_FIELD_NUMBER, .offset = OFF(WbJiggleWalkDef, period), .min = 0,
     .max = 3600, .def = "0",
     .doc = "seconds of one cycle (two footfalls): -|cos(pi t / period)| * bob; 0 = pi/3.2 (0.98 s)"},
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
    {.key = "path", KEY_LIST(WbJiggleDriveDef, path, &jiggle_key_schema),
     .doc = "parent positions {time, to: [x, y], ease} from [0, 0] at 0 s"},
    {.key = "accel", KEY_LIST(WbJiggleDriveDef, accel, &jiggle_key_schema),
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

static WbStatus capsule_collider_check(void *base, const WbNode *map, WbBind *b)
{
    const WbJiggleCapsuleColliderDef *c = base;
    WbStatus st = jiggle_point(map, "a", c->a, b);
    return st ? st : jiggle_point(map, "b", c->b, b);
}

static const WbField capsule_collider_fields[] = {
    {.key = "a", .type = WB_FIELD_POINT, .offset = OFF(WbJiggleCapsuleColliderDef, a),
     .min = -WORLD_MAX, .max = WORLD_MAX, .type_name = "point [x, y] in world units",
     .def = "[-0.6, -0.9]", .doc = "one end of the capsule's axis"},
    {.key = "b", .type = WB_FIELD_POINT, .offset = OFF(WbJiggleCapsuleColliderDef, b),
     .min = -WORLD_MAX, .max = WORLD_MAX, .type_name = "point [x, y] in world units",
     .def = "[0.6, -0.9]", .doc = "the other end (a = b: a ring / sphere)"},
    {.key = "radius", .type = WB_FIELD_NUMBER, .flags = WB_FIELD_MIN_OPEN,
     .offset = OFF(WbJiggleCapsuleColliderDef, radius), .min = 0, .max = WORLD_MAX, .def = "0.2",
     .doc = "radius around the axis; bones are kept outside"},
};
static const WbSchema capsule_collider_schema = {FIELDS(capsule_collider_fields),
                                                 .check = capsule_collider_check};

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
    {.key = "capsule_collider", .type = WB_FIELD_BLOCK, .flags = WB_FIELD_PRESENCE,
     .offset = OFF(WbJiggleSceneDef, capsule_collider),
     .aux = OFF(WbJiggleSceneDef, capsule_collider.enabled), .sub = &capsule_collider_schema,
     .def = "", .doc = "a capsule (segment a-b at z 0, radius) collider the bones stay out of"},
    {.key = "chain", .type = WB_FIELD_BOOL, .offset = OFF(WbJiggleSceneDef, chain),
     .def = "false", .doc = "bones 0 -> 1 -> 2 are one chain: each region moves by the running "
     "sum of the offsets above it; colliders push joints (1d: one damping, zeta = damp)"},
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
const WbSchema wb_keys_jiggle = {FIELDS(jiggle_fields), .check = jiggle_check};

/* ---- timeline actions ---- */

static const WbField reseed_fields[] = {
    {.key = "seed", .type = WB_FIELD_U32, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.reseed.seed), .min = 0, .max = 4294967295.0, .def = "",
     .doc = "new seed of the per-bone character (mulberry32)"},
};
const WbSchema wb_keys_reseed = {FIELDS(reseed_fields)};

static const WbField shake_fields[] = {
    {.key = "span", .type = WB_FIELD_NUMBER, .offset = OFF(WbEvent, u.shake.span), .min = 0,
     .max = 1e6, .def = "11", .doc = "units/s: each velocity axis += (u - 1/2) * span"},
};

static void shake_init(void *base)
{
    ((WbEvent *)base)->u.shake.span = 11.0;
}

const WbSchema wb_keys_shake = {FIELDS(shake_fields), .init = shake_init};

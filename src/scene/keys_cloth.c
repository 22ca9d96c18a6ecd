/* keys_cloth.c — the cloth block (WbClothSceneDef: the sheet and its fabric,
 * pins, bodies, wind, camera, looks) and the cloth timeline's actions,
 * release and wind. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene/keys.h"

/* WB_FIELD_ENUM stores through an int lvalue (see keys_scene.c). */
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

const WbSchema wb_keys_cloth = {FIELDS(cloth_fields), .check = cloth_check,
                               .implied = cloth_implied};

/* ---- timeline actions ---- */

static const WbField cloth_release_fields[] = {
    {.key = "pin", .type = WB_FIELD_STRING, .offset = OFF(WbEvent, u.cloth_release.pin),
     .aux = WB_NAME_MAX, .def = "\"\"",
     .doc = "name of a cloth.pins entry; \"\" = every pinned particle"},
};
const WbSchema wb_keys_cloth_release = {FIELDS(cloth_release_fields)};

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
static void cloth_wind_event_init(void *base)
{
    WbEvent *ev = base;
    ev->u.cloth_wind.direction[0] = 1.0;
    ev->u.cloth_wind.bias = 1.0;
}

const WbSchema wb_keys_cloth_wind = {FIELDS(cloth_wind_event_fields),
                                     .init = cloth_wind_event_init,
                                     .check = cloth_wind_event_check};

static const WbField cloth_teleport_fields[] = {
    {.key = "by", VEC3(WbEvent, u.teleport.by3, -WORLD_MAX, WORLD_MAX),
     .flags = WB_FIELD_REQUIRED, .type_name = "[dx, dy, dz] in metres", .def = "",
     .doc = "how far the cloth, its pins and its bodies jump (the floor stays)"},
};
const WbSchema wb_keys_cloth_teleport = {FIELDS(cloth_teleport_fields)};

/* ---- the whole scene ---- */

/* A cloth scene has no photo block, and every `release` names a pin of
 * cloth.pins (or "" for all); errors point at the event. */
WbStatus wb_keys_cloth_scene_check(const WbScene *s, const WbNode *map, WbBind *b)
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

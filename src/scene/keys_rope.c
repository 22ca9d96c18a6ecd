/* keys_rope.c — the rope block (WbRopeSceneDef: ropes, obstacles, the world
 * view) and the rope timeline's action, cut.  Rope scenes are in metres:
 * pixel points are refused. */
#include <math.h>
#include <stdio.h>

#include "scene/keys.h"

/* WB_FIELD_ENUM stores through an int lvalue (see keys_scene.c). */
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
    KEY_EASE_FIELD,
};
static const WbSchema rope_key_schema = {FIELDS(rope_key_fields), .elem_size = sizeof(WbKey),
                                         .init = wb_keys_key_init, .check = rope_key_check};


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
    {.key = "start_path", KEY_LIST(WbRopeLineDef, start_path, &rope_key_schema),
     .doc = "keys {time, to, ease} the pinned start follows (from `from` at 0 s)"},
    {.key = "end_path", KEY_LIST(WbRopeLineDef, end_path, &rope_key_schema),
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
    /* At least 1e-5 s: 100,000 steps a second, the ceiling of the other
     * kinds' rate; below it a frame costs more steps than anyone waits for
     * and the step counts leave every integer type. */
    {.key = "step", .type = WB_FIELD_NUMBER, .offset = OFF(WbRopeSceneDef, step), .min = 1e-5,
     .max = 0.1, .def = "0.008333333333333333",
     .doc = "fixed time step in seconds (1/120, at least 1e-5); the render takes every step"},
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
const WbSchema wb_keys_rope = {FIELDS(rope_fields), .check = rope_check};

/* ---- timeline actions ---- */

static const WbField cut_fields[] = {
    {.key = "rope", .type = WB_FIELD_INT, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.cut.rope), .min = 0, .max = 63, .def = "",
     .doc = "which rope (0-based, in rope.ropes order)"},
    {.key = "link", .type = WB_FIELD_INT, .flags = WB_FIELD_REQUIRED,
     .offset = OFF(WbEvent, u.cut.link), .min = 0, .max = 2046, .def = "",
     .doc = "which link (0-based from the start; links = nodes - 1)"},
};
const WbSchema wb_keys_cut = {FIELDS(cut_fields)};

/* ---- the whole scene ---- */

/* A rope scene needs ropes, and every cut must name a link that exists and
 * is not cut twice; errors point at the event. */
WbStatus wb_keys_rope_scene_check(const WbScene *s, const WbNode *map, WbBind *b)
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

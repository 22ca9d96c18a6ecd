/* scene.c — the scene's defaults, the photo presets, and unit resolution.
 * The defaults here and the `def` column of the key tables (keys_*.c) say
 * the same thing; test_scene checks that they agree. */
#include "scene/scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_load.h"

/* ------------------------------------------------------------- defaults */

void wb_scene_default(WbScene *s)
{
    memset(s, 0, sizeof *s);
    s->version = WB_SCENE_VERSION;
    s->kind = WB_KIND_PHOTO;
    s->seed = 0;
    s->output = (WbOutputDef){
        .width = 0,
        .height = 0,
        .scale = 1.0,
        .fps = 30.0,
        .duration = 3.0,
        .until_settled = false,
        .settle_hold = 0.0,
        .background = {0.0, 0.0, 0.0, 1.0},
        .transparent = false,
        .fit = WB_FIT_CONTAIN,
        .loop_count = 0,
        .loop_periods = 1,
        .motion_blur = {.samples = 1, .shutter = 0.5},
    };
    WbPhotoDef *p = &s->photo;
    p->grid = 512;
    p->preset = WB_PRESET_NONE;
    p->frequency = 2.0;
    p->elasticity = 0.0;
    p->bounce = 0.3;
    p->integrator = WB_INTEGRATOR_EULER;
    p->rate = 240.0;
    p->radius = (WbLen){0.0, false, true};
    p->grip = 0.35;
    p->settle_epsilon = 2e-5;
    p->fold_limit = true;
    p->segment = (WbSegmentDef){false, {0.5, 0.5, false, false}, 0.15};
    p->fill = WB_PHOTO_FILL_INPAINT;
    p->fill_color = (WbColor){0.0, 0.0, 0.0, 1.0};
    p->edge = WB_PHOTO_EDGE_CLAMP;
    p->edge_color = (WbColor){0.0, 0.0, 0.0, 1.0};
    wb_rope_scene_default(&s->rope);
    wb_jiggle_scene_default(&s->jiggle);
    wb_cloth_scene_default(&s->cloth);
}

void wb_jiggle_scene_default(WbJiggleSceneDef *j)
{
    memset(j, 0, sizeof *j);
    j->view = WB_JIGGLE_VIEW_2D;
    j->shape = WB_JIGGLE_SHAPE_DISC;
    j->freq = 1.9;
    j->damp = 0.14;
    j->gravity = 2.7;
    j->rate = 120.0;
    j->force_radius = 0.15;
    j->gain = (WbJiggleGainDef){1.0, 1.0, 1.0, 1.0};
    j->limit = 0.4;
    j->restitution = 0.0;
    j->floor = (WbJiggleFloorDef){false, -1.2};
    j->ring_collider = (WbJiggleRingColliderDef){false, {1.6, -0.4, false, false}, 0.35};
    j->capsule_collider = (WbJiggleCapsuleColliderDef){
        false, {-0.6, -0.9, false, false}, {0.6, -0.9, false, false}, 0.2};
    j->chain = false;
    j->overlay = false;
    j->window = 4.0;
    j->colour = (WbColor){0xee / 255.0, 0x9e / 255.0, 0x8c / 255.0, 1.0}; /* #ee9e8c */
    j->drive.gain = 1.0;
    j->drive.smoothing = 0.012;
    j->drive.orbit = (WbJiggleOrbitDef){false, 0.6, 0.0, 2.0, 0.04};
    j->drive.walk = (WbJiggleWalkDef){false, 0.22, 0.0};
    j->camera = (WbJiggleCameraDef){25.0, 12.0, 0.0, 40.0};
    j->squash = 0.0;
    j->heatmap = false;
}

void wb_rope_scene_default(WbRopeSceneDef *r)
{
    memset(r, 0, sizeof *r);
    r->solver = WB_ROPE_SOLVER_JAKOBSEN;
    r->passes = 5;
    r->damping = 0.99;
    r->gravity = 9.81;
    r->step = 1.0 / 120.0;
    r->max_frame_delta = 0.25;
    r->settle_speed = 1e-3;
    r->view = (WbRopeViewDef){4.0, 3.0};
}

void wb_rope_line_default(WbRopeLineDef *l)
{
    memset(l, 0, sizeof *l);
    l->nodes = 20;
    l->length = 0.0;
    l->pin = WB_ROPE_PIN_START;
    l->end_mass = 1.0;
    l->width = (WbLen){0.0, false, true}; /* auto: 1/75 of the view's shorter side */
    l->colour = (WbColor){0xd9 / 255.0, 0xb8 / 255.0, 0x80 / 255.0, 1.0}; /* #d9b880 */
}

void wb_rope_obstacle_default(WbRopeObstacleDef *o)
{
    memset(o, 0, sizeof *o);
    o->colour = (WbColor){0x5a / 255.0, 0x62 / 255.0, 0x73 / 255.0, 1.0}; /* #5a6273 */
}

/* Each fabric: the six parameters of the cloth solver's preset of the same
 * name (sim/fabric.c holds them as floats; these are their shortest decimal
 * forms, so a printed scene reloads to the same doubles: 0.4f is 0.4 here,
 * not 0.4000000059604645), then its look: colour (straight sRGB), sheen and
 * gloss.  The loader knows nothing of solvers; test_scene.c fails when the
 * six drift from the solver's.  Silk is a saturated colour with a strong
 * grazing lustre and a tight highlight; denim a dusty indigo with almost
 * none of either (a matte twill). */
static const struct {
    double stiffness, weight, damping, bend_stiffness, friction, wind_response;
    double rgb[3], sheen, gloss;
} fabric_table[] = {
    [WB_CLOTH_FABRIC_CHIFFON] = {0.3, 0.04, 0.99, 0.004, 0.15, 0.5,
                                 {0xe8 / 255.0, 0xb4 / 255.0, 0xc8 / 255.0}, 0.35, 0.10},
    [WB_CLOTH_FABRIC_SILK] = {0.4, 0.08, 0.995, 0.008, 0.2, 0.3,
                              {0xb0 / 255.0, 0x1e / 255.0, 0x3c / 255.0}, 0.80, 0.45},
    [WB_CLOTH_FABRIC_COTTON] = {0.6, 0.15, 0.99, 0.04, 0.4, 0.2,
                                {0xe6 / 255.0, 0xe0 / 255.0, 0xd2 / 255.0}, 0.15, 0.05},
    [WB_CLOTH_FABRIC_WOOL] = {0.7, 0.3, 0.985, 0.08, 0.5, 0.1,
                              {0x7a / 255.0, 0x8c / 255.0, 0x5a / 255.0}, 0.25, 0.02},
    [WB_CLOTH_FABRIC_DENIM] = {0.85, 0.4, 0.98, 0.12, 0.6, 0.05,
                               {0x3a / 255.0, 0x55 / 255.0, 0x7c / 255.0}, 0.05, 0.02},
    [WB_CLOTH_FABRIC_LEATHER] = {0.95, 0.8, 0.98, 0.25, 0.7, 0.03,
                                 {0x6b / 255.0, 0x3e / 255.0, 0x22 / 255.0}, 0.10, 0.30},
};

void wb_cloth_fabric_apply(WbClothSceneDef *c, WbClothFabricKind fabric)
{
    c->stiffness = fabric_table[fabric].stiffness;
    c->weight = fabric_table[fabric].weight;
    c->damping = fabric_table[fabric].damping;
    c->bend_stiffness = fabric_table[fabric].bend_stiffness;
    c->friction = fabric_table[fabric].friction;
    c->wind_response = fabric_table[fabric].wind_response;
    c->colour = (WbColor){fabric_table[fabric].rgb[0], fabric_table[fabric].rgb[1],
                          fabric_table[fabric].rgb[2], 1.0};
    c->sheen = fabric_table[fabric].sheen;
    c->gloss = fabric_table[fabric].gloss;
}

void wb_cloth_scene_default(WbClothSceneDef *c)
{
    memset(c, 0, sizeof *c);
    c->grid = 70;
    c->size[0] = c->size[1] = 1.4;
    c->centre[0] = 0.0;
    c->centre[1] = 1.95;
    c->centre[2] = 0.0;
    c->layout = WB_CLOTH_HORIZONTAL;
    c->fabric = WB_CLOTH_FABRIC_SILK;
    wb_cloth_fabric_apply(c, c->fabric);
    c->solver = WB_CLOTH_SOLVER_PBD;
    c->bending = WB_CLOTH_BEND_SKIP_ONE;
    c->substeps = 6;
    c->iterations = 10;
    c->self_collision = false;
    c->thickness = 0.0;
    c->max_stretch = 1.12;
    c->margin = 0.008;
    c->gravity = 9.81;
    c->floor = true;
    c->floor_y = 0.0;
    c->pin = WB_CLOTH_PINS_NONE;
    c->mannequin = (WbClothBodyDef){false, {0.0, 0.0, 0.0}, 1.0,
                                    {0xd8 / 255.0, 0xcf / 255.0, 0xc4 / 255.0, 1.0}};
    c->wind = (WbClothWindDef){0.0, {1.0, 0.0, 0.0}, 1.0};
    c->camera = (WbClothCameraDef){.target = {0.0, 1.0, 0.0}, .yaw = 25.0, .pitch = 15.0,
                                   .distance = 4.2, .fov = 40.0, .eye_set = false};
    c->floor_colour = (WbColor){0x9a / 255.0, 0x96 / 255.0, 0x8e / 255.0, 1.0}; /* #9a968e */
    c->settle_speed = 0.002;
}

void wb_cloth_scene_grid(const WbClothSceneDef *c, int *nx, int *ny)
{
    bool wide = c->size[0] >= c->size[1];
    double lng = wide ? c->size[0] : c->size[1], shrt = wide ? c->size[1] : c->size[0];
    double cell = lng / (c->grid - 1);
    double m = floor(shrt / cell + 0.5) + 1.0;
    int other = m < 3.0 ? 3 : m > WB_CLOTH_MAX_GRID_SCENE ? WB_CLOTH_MAX_GRID_SCENE : (int)m;
    *nx = wide ? c->grid : other;
    *ny = wide ? other : c->grid;
}

void wb_cloth_pin_default(WbClothPinDef *p)
{
    memset(p, 0, sizeof *p);
}

void wb_cloth_sphere_default(WbClothSphereDef *s)
{
    memset(s, 0, sizeof *s);
    s->centre[1] = 1.0;
    s->radius = 0.3;
    s->colour = (WbColor){0x8c / 255.0, 0x94 / 255.0, 0xa3 / 255.0, 1.0}; /* #8c94a3 */
}

void wb_cloth_box_default(WbClothBoxDef *b)
{
    memset(b, 0, sizeof *b);
    b->centre[1] = 0.25;
    b->size[0] = b->size[1] = b->size[2] = 0.5;
    b->colour = (WbColor){0x8c / 255.0, 0x94 / 255.0, 0xa3 / 255.0, 1.0}; /* #8c94a3 */
}

void wb_scene_free_events(WbScene *s)
{
    for (size_t i = 0; i < s->n_events; i++)
        if (s->events[i].type == WB_EVENT_GRAB)
            free(s->events[i].u.grab.path);
    free(s->events);
    s->events = NULL;
    s->n_events = 0;
}

void wb_scene_free(WbScene *s)
{
    if (!s)
        return;
    wb_scene_free_events(s);
    free(s->rope.ropes);
    s->rope.ropes = NULL;
    s->rope.n_ropes = 0;
    free(s->rope.obstacles);
    s->rope.obstacles = NULL;
    s->rope.n_obstacles = 0;
    free(s->cloth.pins);
    s->cloth.pins = NULL;
    s->cloth.n_pins = 0;
    free(s->cloth.spheres);
    s->cloth.spheres = NULL;
    s->cloth.n_spheres = 0;
    free(s->cloth.boxes);
    s->cloth.boxes = NULL;
    s->cloth.n_boxes = 0;
}

void wb_photo_preset_apply(WbPhotoDef *p, WbPreset preset)
{
    /* (frequency Hz, damping ratio ζ) per preset, as fitted by the engine
     * (wb_photo_preset_values in sim/presets.c: `wobble presets photo`
     * prints them) to the rows Spring 0.40 s / 6 / 1.38 s, Rubber
     * 0.51 s / 2 / 0.80 s, Jelly 0.63 s / 5 / 1.87 s.  The loader does not
     * run the fit itself (it knows nothing of solvers); test_presets.c
     * fails when these six numbers drift from the fit. */
    switch (preset) {
    case WB_PRESET_NONE: break;
    case WB_PRESET_SPRING: p->frequency = 2.52432; p->bounce = 0.174806; break;
    case WB_PRESET_RUBBER: p->frequency = 2.09825; p->bounce = 0.377106; break;
    case WB_PRESET_JELLY: p->frequency = 1.61413; p->bounce = 0.202637; break;
    }
}

double wb_len_resolve(WbLen len, int img_w, int img_h, double automatic_value)
{
    if (len.automatic)
        return automatic_value;
    if (!len.px)
        return len.value;
    int shorter = img_w < img_h ? img_w : img_h;
    return shorter > 0 ? len.value / shorter : 0.0;
}

void wb_point_resolve(WbPoint p, int img_w, int img_h, double *x, double *y)
{
    *x = p.px_x ? (img_w > 0 ? p.x / img_w : 0.0) : p.x;
    *y = p.px_y ? (img_h > 0 ? p.y / img_h : 0.0) : p.y;
}

/* run_cloth.c — the cloth kind behind the runner interface: the scene's
 * cloth block becomes a WbClothDef, the frame loop's absolute step index
 * drives one solver substep per step (the fixed dt = 1/(60·substeps) s of
 * the reference, so 24, 30 and 60 fps renders show the same motion),
 * timeline events fire on the step their time falls on, and cloth_view
 * draws the result through raster3d.
 *
 * Events: `release` lets a named pin (or every pinned particle) go; `wind`
 * blends the wind from its values at the event to the new ones over `ramp`
 * seconds (linearly, strength, direction and bias alike; 0 = at once);
 * `teleport` moves the cloth, its pins and its bodies in one step (the
 * particles' previous positions too, so no velocity appears); `reset`
 * stops every particle where it is.
 *
 * Stillness: after a step in which no particle moved faster than
 * cloth.settle_speed, and that for SETTLE_HOLD seconds running, with calm
 * wind and no event ahead, the cloth is settled: its implicit velocities
 * are zeroed and steps are skipped until an event wakes it.  The rule
 * depends only on the step sequence, so every render of a frame range
 * agrees.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "render/camera.h"
#include "render/cloth_view.h"
#include "run/runner.h"
#include "run/timeline.h"
#include "sim/cloth.h"
#include "sim/fabric.h"
#include "sim/mannequin.h"

/* The scene's fabric names index the solver's presets directly. */
_Static_assert((int)WB_CLOTH_FABRIC_CHIFFON == (int)WB_FABRIC_CHIFFON &&
                   (int)WB_CLOTH_FABRIC_SILK == (int)WB_FABRIC_SILK &&
                   (int)WB_CLOTH_FABRIC_COTTON == (int)WB_FABRIC_COTTON &&
                   (int)WB_CLOTH_FABRIC_WOOL == (int)WB_FABRIC_WOOL &&
                   (int)WB_CLOTH_FABRIC_DENIM == (int)WB_FABRIC_DENIM &&
                   (int)WB_CLOTH_FABRIC_LEATHER == (int)WB_FABRIC_LEATHER &&
                   (int)WB_FABRIC_COUNT == 6,
               "scene fabric names follow WbFabricId");

#define SETTLE_HOLD 0.25   /* seconds below settle_speed before the cloth counts as still */
#define RUNAWAY 1e5f       /* metres: a particle this far out has diverged */
/* A structural link this many times its rest length has exploded while
 * staying finite: the solve holds them near 1.12× (max_stretch), and the
 * wildest example stays far below. */
#define STRETCH_MAX 100.0f

typedef struct WindRamp {
    bool active;
    double t0, t1;          /* seconds */
    WbClothWind from, to;
} WindRamp;

typedef struct ClothRun {
    const WbScene *scene;   /* borrowed; outlives the runner */
    WbClothDef def;
    WbClothState st;
    bool st_ready;
    WbClothView view;
    bool view_ready;
    double dt;              /* one substep, s */
    int64_t step;           /* substeps taken (absolute index) */
    WbTimeline tl;             /* the scene's events, fired by step */
    WbClothSceneDef live;   /* the cloth block's numbers with their ramps applied (shallow) */
    int64_t ramps_end;      /* substep from which no ramp changes anything (0: none) */
    WindRamp ramp;
    int64_t still_steps, hold_steps;
    bool settled;
    double max_speed;       /* of the last step taken, m/s */
    uint64_t generation, drawn_generation;
    bool drawn_once;
    float *export_xyz;      /* wobble export: interleaved positions */
    uint32_t *export_tris;  /* and the grid's triangles */
} ClothRun;

/* Grid index with negatives counted from the end. */
static int grid_index(int k, int n) { return k < 0 ? n + k : k; }

static void vec3f(float out[3], const double in[3])
{
    for (int c = 0; c < 3; c++)
        out[c] = (float)in[c];
}

static WbClothWind scene_wind(double strength, const double dir[3], double bias)
{
    WbClothWind w = {.strength = (float)strength, .bias = (float)bias};
    vec3f(w.dir, dir);
    return w;
}

/* The pinned particles: the scene's pin set (left-edge as a list, the
 * others as the solver's own modes) and then the named pins. */
static WbStatus build_pins(ClothRun *p, WbError *err)
{
    const WbClothSceneDef *c = &p->scene->cloth;
    WbClothDef *d = &p->def;
    d->n_pins = 0;
    switch (c->pin) {
    case WB_CLOTH_PINS_NONE: d->pin_mode = WB_CLOTH_PIN_NONE; break;
    case WB_CLOTH_PINS_TOP_EDGE: d->pin_mode = WB_CLOTH_PIN_TOP_EDGE; break;
    case WB_CLOTH_PINS_TOP_CORNERS: d->pin_mode = WB_CLOTH_PIN_TOP_CORNERS; break;
    case WB_CLOTH_PINS_CORNERS: d->pin_mode = WB_CLOTH_PIN_CORNERS; break;
    case WB_CLOTH_PINS_LEFT_EDGE:
        d->pin_mode = WB_CLOTH_PIN_NONE;
        if (d->ny > WB_CLOTH_MAX_PINS)
            return wb_error_at(err, WB_E_INPUT, p->scene->path, 0, 0,
                               "cloth.pin: left-edge pins %d particles; at most %d (lower "
                               "cloth.grid)", d->ny, WB_CLOTH_MAX_PINS);
        for (int j = 0; j < d->ny; j++)
            d->pins[d->n_pins++] = (WbClothPin){0, j};
        break;
    }
    if ((size_t)d->n_pins + c->n_pins > WB_CLOTH_MAX_PINS)
        return wb_error_at(err, WB_E_INPUT, p->scene->path, 0, 0,
                           "cloth: %zu named pins on top of %d edge pins; at most %d",
                           c->n_pins, d->n_pins, WB_CLOTH_MAX_PINS);
    for (size_t k = 0; k < c->n_pins; k++)
        d->pins[d->n_pins++] = (WbClothPin){grid_index(c->pins[k].i, d->nx),
                                            grid_index(c->pins[k].j, d->ny)};
    return WB_OK;
}

/* The default dress form at `at`, every length times `scale`. */
static WbMannequinDef scaled_form(const WbClothBodyDef *body)
{
    WbMannequinDef b = wb_mannequin_default();
    float s = (float)body->scale;
    vec3f(b.position, body->at);
    b.hip_height *= s;
    b.torso_height *= s;
    for (int k = 0; k < 2; k++) {
        b.hip[k] *= s;
        b.waist[k] *= s;
        b.chest[k] *= s;
        b.shoulder[k] *= s;
    }
    b.head_radius *= s;
    return b;
}

/* Bodies: the form, the sphere and box obstacles. */
static WbStatus build_bodies(ClothRun *p, WbError *err)
{
    const WbClothSceneDef *c = &p->scene->cloth;
    WbClothDef *d = &p->def;
    d->mannequin = c->mannequin.enabled;
    if (d->mannequin)
        d->body = scaled_form(&c->mannequin);
    int body_spheres = d->mannequin ? wb_mannequin_sphere_count(&d->body) : 0;
    if (body_spheres + (int)c->n_spheres > WB_CLOTH_MAX_SPHERES)
        return wb_error_at(err, WB_E_INPUT, p->scene->path, 0, 0,
                           "cloth: %d mannequin spheres and %zu obstacles; at most %d spheres",
                           body_spheres, c->n_spheres, WB_CLOTH_MAX_SPHERES);
    d->n_spheres = (int)c->n_spheres;
    for (size_t k = 0; k < c->n_spheres; k++) {
        const WbClothSphereDef *sp = &c->spheres[k];
        d->spheres[k] = (WbSphere){(float)sp->centre[0], (float)sp->centre[1],
                                   (float)sp->centre[2], (float)sp->radius};
    }
    d->n_boxes = (int)c->n_boxes;
    for (size_t k = 0; k < c->n_boxes; k++)
        for (int q = 0; q < 3; q++) {
            d->boxes[k].c[q] = (float)c->boxes[k].centre[q];
            d->boxes[k].h[q] = (float)(0.5 * c->boxes[k].size[q]);
        }
    return WB_OK;
}

/* The solver's def from the cloth block: the grid laid out in its plane,
 * pins, bodies, fabric and solver settings. */
static WbStatus build_def(ClothRun *p, WbError *err)
{
    const WbClothSceneDef *c = &p->scene->cloth;
    WbClothDef *d = &p->def;
    *d = wb_cloth_default();
    wb_cloth_scene_grid(c, &d->nx, &d->ny);
    /* square cells: the longer side sets the spacing */
    double cell = fmax(c->size[0], c->size[1]) / ((d->nx >= d->ny ? d->nx : d->ny) - 1);
    d->size[0] = (float)(cell * (d->nx - 1));
    d->size[1] = (float)(cell * (d->ny - 1));
    static const float x_axis[3] = {1, 0, 0}, down[3] = {0, -1, 0}, back[3] = {0, 0, -1};
    memcpy(d->axis_i, x_axis, sizeof x_axis);
    memcpy(d->axis_j, c->layout == WB_CLOTH_VERTICAL ? down : back, sizeof down);
    for (int k = 0; k < 3; k++)
        d->origin[k] = (float)(c->centre[k] - 0.5 * d->size[0] * d->axis_i[k] -
                               0.5 * d->size[1] * d->axis_j[k]);
    WbStatus st = build_pins(p, err);
    if (!st)
        st = build_bodies(p, err);
    if (st)
        return st;
    d->self_collision = c->self_collision;
    d->fabric = (WbFabric){
        .name = wb_fabric_preset((WbFabricId)c->fabric).name,
        .stiffness = (float)c->stiffness,
        .weight = (float)c->weight,
        .damping = (float)c->damping,
        .bend_stiffness = (float)c->bend_stiffness,
        .friction = (float)c->friction,
        .wind_response = (float)c->wind_response,
    };
    d->solver = c->solver == WB_CLOTH_SOLVER_XPBD ? WB_CLOTH_XPBD : WB_CLOTH_PBD;
    d->bending = c->bending == WB_CLOTH_BEND_DIHEDRAL_ANGLE ? WB_CLOTH_BEND_DIHEDRAL
                                                            : WB_CLOTH_BEND_SKIP;
    d->substeps = c->substeps;
    d->iterations = c->iterations;
    d->gravity = (float)c->gravity;
    d->max_stretch = (float)c->max_stretch;
    d->margin = (float)c->margin;
    d->thickness = (float)c->thickness;
    d->floor = c->floor;
    d->floor_y = (float)c->floor_y;
    d->wind = scene_wind(c->wind.strength, c->wind.direction, c->wind.bias);
    return WB_OK;
}

static void wake(ClothRun *p)
{
    p->settled = false;
    p->still_steps = 0;
}

/* Teleport: the cloth with its pins and bodies (and the bodies as drawn)
 * moves by the event's `by` (wb_cloth_translate); with `particles` false
 * the bodies alone, to bring a loaded state's bodies where they were. */
static void teleport(ClothRun *p, const WbEvent *ev, bool particles)
{
    float by[3];
    vec3f(by, ev->u.teleport.by3);
    if (particles)
        wb_cloth_translate(&p->st, by);
    else
        wb_cloth_translate_bodies(&p->st, by);
    wb_cloth_view_move_bodies(&p->view, by);
    p->generation++;
}

static void fire_events(ClothRun *p)
{
    const WbScene *sc = p->scene;
    const WbClothSceneDef *c = &sc->cloth;
    const WbEvent *ev;
    while ((ev = wb_timeline_due(&p->tl, p->step))) {
        double now = (double)p->step * p->dt;
        if (ev->type == WB_EVENT_CLOTH_RELEASE) {
            const char *name = ev->u.cloth_release.pin;
            if (!name[0]) {
                wb_cloth_release_all(&p->st);
            } else {
                /* the loader checked the name; every pin of that name goes */
                for (size_t k = 0; k < c->n_pins; k++)
                    if (!strcmp(c->pins[k].name, name))
                        wb_cloth_set_pinned(&p->st, grid_index(c->pins[k].i, p->st.nx),
                                            grid_index(c->pins[k].j, p->st.ny), false);
            }
            wake(p);
        } else if (ev->type == WB_EVENT_CLOTH_WIND) {
            WbClothWind to = scene_wind(ev->u.cloth_wind.strength, ev->u.cloth_wind.direction,
                                        ev->u.cloth_wind.bias);
            if (ev->u.cloth_wind.ramp > 0.0) {
                p->ramp = (WindRamp){true, now, now + ev->u.cloth_wind.ramp, p->def.wind, to};
            } else {
                p->ramp.active = false;
                p->def.wind = to;
            }
            wake(p);
        } else if (ev->type == WB_EVENT_TELEPORT) {
            teleport(p, ev, true);
            wake(p);
        } else if (ev->type == WB_EVENT_RESET) {
            /* at rest where it is: no implicit velocity left */
            WbClothState *s = &p->st;
            memcpy(s->px, s->x, sizeof *s->x * (size_t)s->n);
            memcpy(s->py, s->y, sizeof *s->y * (size_t)s->n);
            memcpy(s->pz, s->z, sizeof *s->z * (size_t)s->n);
            wake(p);
        }
    }
}

/* The wind at time t of an active ramp: every component linear in time. */
static void ramp_wind(ClothRun *p, double t)
{
    WindRamp *r = &p->ramp;
    if (!r->active)
        return;
    double u = (t - r->t0) / (r->t1 - r->t0);
    if (u >= 1.0) {
        u = 1.0;
        r->active = false;
    }
    float f = (float)(u < 0.0 ? 0.0 : u);
    WbClothWind *w = &p->def.wind;
    w->strength = r->from.strength + (r->to.strength - r->from.strength) * f;
    w->bias = r->from.bias + (r->to.bias - r->from.bias) * f;
    /* directions are normalized before blending so both ends weigh alike */
    float a = sqrtf(r->from.dir[0] * r->from.dir[0] + r->from.dir[1] * r->from.dir[1] +
                    r->from.dir[2] * r->from.dir[2]);
    float b = sqrtf(r->to.dir[0] * r->to.dir[0] + r->to.dir[1] * r->to.dir[1] +
                    r->to.dir[2] * r->to.dir[2]);
    for (int k = 0; k < 3; k++) {
        w->dir[k] = r->from.dir[k] / a * (1.0f - f) + r->to.dir[k] / b * f;
    }
    /* The solver normalizes the direction, so the blend's own length must
     * go into the strength: the wind is strength × blended unit vectors,
     * and a wind that turns round dies down and builds up again instead of
     * blowing at full strength until halfway and then flipping at once
     * (with, at the crossing step, a full-strength gust straight up). */
    float len = sqrtf(w->dir[0] * w->dir[0] + w->dir[1] * w->dir[1] + w->dir[2] * w->dir[2]);
    if (f > 0.0f && f < 1.0f) /* the ends are the events' own values, unrounded */
        w->strength *= len;
    if (!(len > 0.0f)) { /* exactly opposite, exactly halfway: no wind this step */
        w->strength = 0.0f;
        w->dir[1] = 1.0f; /* any direction: the solver still divides by its length */
    }
}

static float dist2(const WbClothState *s, int a, int b)
{
    float dx = s->x[b] - s->x[a], dy = s->y[b] - s->y[a], dz = s->z[b] - s->z[a];
    return dx * dx + dy * dy + dz * dz;
}

/* The first particle whose link to its right or lower neighbour is past
 * STRETCH_MAX times its rest length (*ratio: how far), or -1. */
static int find_overstretched(const WbClothState *s, float *ratio)
{
    float h2 = STRETCH_MAX * STRETCH_MAX * s->rest[0] * s->rest[0];
    float v2 = STRETCH_MAX * STRETCH_MAX * s->rest[1] * s->rest[1];
    for (int k = 0; k < s->n; k++) {
        int i = k % s->nx;
        float d;
        if (i + 1 < s->nx && (d = dist2(s, k, k + 1)) > h2) {
            *ratio = sqrtf(d) / s->rest[0];
            return k;
        }
        if (k + s->nx < s->n && (d = dist2(s, k, k + s->nx)) > v2) {
            *ratio = sqrtf(d) / s->rest[1];
            return k;
        }
    }
    return -1;
}

static WbStatus check_finite(ClothRun *p, WbError *err)
{
    const WbClothState *s = &p->st;
    int bad = wb_cloth_find_nonfinite(s);
    for (int k = 0; bad < 0 && k < s->n; k++)
        if (fabsf(s->x[k]) > RUNAWAY || fabsf(s->y[k]) > RUNAWAY || fabsf(s->z[k]) > RUNAWAY)
            bad = k;
    float ratio = 0.0f;
    if (bad < 0)
        bad = find_overstretched(s, &ratio);
    if (bad < 0)
        return WB_OK;
    char how[64] = "";
    if (ratio > 0.0f)
        snprintf(how, sizeof how, ", a link stretched %.0f times its rest length", (double)ratio);
    return wb_error_set(err, WB_E_DIVERGED,
                        "cloth particle (%d, %d) diverged (position %g, %g, %g%s) at %.4f s "
                        "(step %lld); try more iterations or substeps, or solver: xpbd",
                        bad % s->nx, bad / s->nx, (double)s->x[bad], (double)s->y[bad],
                        (double)s->z[bad], how, (double)(p->step + 1) * p->dt,
                        (long long)(p->step + 1));
}

/* No wind force now or to come: none blowing, or a weave that catches none
 * of it (wind_response 0 used to keep such a cloth from ever settling). */
static bool calm(const ClothRun *p)
{
    return !(p->def.fabric.wind_response > 0.0f) ||
           (!p->ramp.active && !(p->def.wind.strength > 0.0f));
}

/* The ramped numbers of the cloth block at this substep (timeline.h); the
 * solver reads its fabric every substep. */
static void apply_ramps(ClothRun *p)
{
    wb_timeline_ramp_block(&p->tl, &p->scene->cloth, &p->live, p->step);
    const WbClothSceneDef *c = &p->live;
    WbFabric *f = &p->def.fabric;
    f->stiffness = (float)c->stiffness;
    f->damping = (float)c->damping;
    f->bend_stiffness = (float)c->bend_stiffness;
    f->friction = (float)c->friction;
    f->wind_response = (float)c->wind_response;
    p->def.gravity = (float)c->gravity;
}

static WbStatus cloth_advance(void *self, int64_t target, WbError *err)
{
    ClothRun *p = self;
    WbClothState *s = &p->st;
    while (p->step < target) {
        if (wb_runner_stopped(p->def.cancel, err))
            return WB_E_INTERRUPTED;
        fire_events(p);
        bool ramping = p->step < p->ramps_end;
        if (ramping) {
            apply_ramps(p);
            wake(p);
        }
        if (p->settled) {
            p->step++;
            continue;
        }
        double t = (double)p->step * p->dt;
        ramp_wind(p, t);
        wb_cloth_substep(s, &p->def, t, (float)p->dt);
        /* stopped inside the step: its state is half solved */
        if (wb_runner_stopped(p->def.cancel, err))
            return WB_E_INTERRUPTED;
        WbStatus st = check_finite(p, err);
        if (st)
            return st;
        double v2max = 0.0;
        for (int k = 0; k < s->n; k++) {
            double vx = (double)s->x[k] - s->px[k], vy = (double)s->y[k] - s->py[k];
            double vz = (double)s->z[k] - s->pz[k];
            double v2 = vx * vx + vy * vy + vz * vz;
            if (v2 > v2max)
                v2max = v2;
        }
        p->max_speed = sqrt(v2max) / p->dt;
        p->still_steps = p->max_speed < p->scene->cloth.settle_speed ? p->still_steps + 1 : 0;
        if (p->still_steps >= p->hold_steps && calm(p)) {
            /* settle: no implicit velocity left to carry into later steps */
            memcpy(s->px, s->x, sizeof *s->x * (size_t)s->n);
            memcpy(s->py, s->y, sizeof *s->y * (size_t)s->n);
            memcpy(s->pz, s->z, sizeof *s->z * (size_t)s->n);
            p->settled = true;
            p->max_speed = 0.0;
        }
        p->generation++;
        p->step++;
    }
    return WB_OK;
}

static void wind_fields(WbFields *f, const char *name, WbClothWind *w)
{
    float v[5] = {w->strength, w->dir[0], w->dir[1], w->dir[2], w->bias};
    wb_fields_f32(f, name, v, 5);
    *w = (WbClothWind){.strength = v[0], .dir = {v[1], v[2], v[3]}, .bias = v[4]};
}

static void cloth_fields(void *self, WbFields *f)
{
    ClothRun *p = self;
    WbClothState *s = &p->st;
    size_t n = (size_t)s->n;
    wb_fields_i64(f, "cloth.step", &p->step, 1);
    wb_fields_size(f, "cloth.events_fired", &p->tl.next);
    wb_fields_i64(f, "cloth.still_steps", &p->still_steps, 1);
    wb_fields_bool(f, "cloth.settled", &p->settled);
    wb_fields_f64(f, "cloth.max_speed", &p->max_speed, 1);
    wb_fields_u64(f, "cloth.generation", &p->generation, 1);
    /* the wind blowing now and a ramp under way (timeline events) */
    wind_fields(f, "cloth.wind", &p->def.wind);
    wb_fields_bool(f, "cloth.ramp_active", &p->ramp.active);
    wb_fields_f64(f, "cloth.ramp_t0", &p->ramp.t0, 1);
    wb_fields_f64(f, "cloth.ramp_t1", &p->ramp.t1, 1);
    wind_fields(f, "cloth.ramp_from", &p->ramp.from);
    wind_fields(f, "cloth.ramp_to", &p->ramp.to);
    float *arrays[] = {s->x, s->y, s->z, s->px, s->py, s->pz};
    static const char *const names[] = {"cloth.x", "cloth.y", "cloth.z",
                                        "cloth.px", "cloth.py", "cloth.pz"};
    for (int k = 0; k < 6; k++)
        wb_fields_f32(f, names[k], arrays[k], n);
    /* pins released by events change the masses and the stretch limit's
     * distances */
    wb_fields_f32(f, "cloth.w", s->w, n);
    wb_fields_f32(f, "cloth.pin_depth", s->pin_depth, n);
    wb_fields_i32(f, "cloth.free_rows", s->free_rows, (size_t)s->ny);
    wb_fields_f64(f, "cloth.time", &s->time, 1);
    wb_fields_f64(f, "cloth.acc", &s->acc, 1);
    wb_fields_int(f, "cloth.top_hint", &s->top_hint);
    wb_fields_int(f, "cloth.settle_moved", &s->settle_moved);
    if (!f->loading)
        return;
    if (p->tl.next > p->tl.n)
        p->tl.next = p->tl.n;
    /* counters a forged file may set anywhere: a negative step would make
     * the next advance run without end, a huge still count overflow */
    if (p->step < 0)
        p->step = 0;
    if (p->still_steps < 0 || p->still_steps > p->step)
        p->still_steps = 0;
    /* the bodies are no fields: they are where the teleports fired so far
     * put them (the runner loaded into is new, its bodies where they start) */
    for (size_t k = 0; k < p->tl.next; k++)
        if (p->tl.events[k].type == WB_EVENT_TELEPORT)
            teleport(p, &p->tl.events[k], false);
}

/* The particles as a mesh: two triangles per grid cell, counter-clockwise
 * seen from +z at rest (the order the grid is laid out in). */
static WbStatus cloth_motion(void *self, WbMotion *m, WbError *err)
{
    ClothRun *p = self;
    const WbClothState *s = &p->st;
    size_t n = (size_t)s->n, cells = (size_t)(s->nx - 1) * (size_t)(s->ny - 1);
    if (!p->export_xyz) {
        p->export_xyz = malloc(3 * n * sizeof *p->export_xyz);
        p->export_tris = malloc(6 * cells * sizeof *p->export_tris);
        if (!p->export_xyz || !p->export_tris)
            return wb_error_set(err, WB_E_IO, "out of memory");
        uint32_t *t = p->export_tris;
        for (int j = 0; j + 1 < s->ny; j++)
            for (int i = 0; i + 1 < s->nx; i++) {
                uint32_t a = (uint32_t)(j * s->nx + i), b = a + 1, c = a + (uint32_t)s->nx,
                         d = c + 1;
                *t++ = a, *t++ = b, *t++ = d;
                *t++ = a, *t++ = d, *t++ = c;
            }
    }
    for (size_t k = 0; k < n; k++) {
        p->export_xyz[3 * k] = s->x[k];
        p->export_xyz[3 * k + 1] = s->y[k];
        p->export_xyz[3 * k + 2] = s->z[k];
    }
    *m = (WbMotion){.n_points = n, .points = p->export_xyz, .n_tris = 2 * cells,
                    .tris = p->export_tris};
    return WB_OK;
}

static bool cloth_idle(void *self)
{
    ClothRun *p = self;
    return p->settled && wb_timeline_done(&p->tl) && p->step >= p->ramps_end;
}

static bool cloth_changed(void *self)
{
    ClothRun *p = self;
    return !p->drawn_once || p->generation != p->drawn_generation;
}

static WbStatus cloth_draw(void *self, WbPool *pool, WbImage *out, WbError *err)
{
    ClothRun *p = self;
    wb_cloth_normals(&p->st);
    WbStatus st = wb_cloth_view_draw(&p->view, &p->st, pool, out, err);
    if (st)
        return st;
    p->drawn_once = true;
    p->drawn_generation = p->generation;
    return WB_OK;
}

static void cloth_stats(void *self, WbFrameStats *fs)
{
    ClothRun *p = self;
    const WbClothState *s = &p->st;
    size_t n = (size_t)s->n;
    uint64_t h = WB_FNV1A_SEED;
    h = wb_fnv1a(h, s->x, n * sizeof *s->x);
    h = wb_fnv1a(h, s->y, n * sizeof *s->y);
    h = wb_fnv1a(h, s->z, n * sizeof *s->z);
    h = wb_fnv1a(h, s->px, n * sizeof *s->px);
    h = wb_fnv1a(h, s->py, n * sizeof *s->py);
    h = wb_fnv1a(h, s->pz, n * sizeof *s->pz);
    h = wb_fnv1a(h, s->w, n * sizeof *s->w);
    fs->moving = !p->settled;
    /* cloth: the longest structural link's elongation (fraction) */
    fs->max_displacement = (double)wb_cloth_max_stretch(s) - 1.0;
    fs->max_speed = p->max_speed;
    fs->hash = h;
}

static void cloth_destroy(void *self)
{
    ClothRun *p = self;
    if (!p)
        return;
    if (p->view_ready)
        wb_cloth_view_free(&p->view);
    if (p->st_ready)
        wb_cloth_free(&p->st);
    free(p->export_xyz);
    free(p->export_tris);
    free(p);
}

static WbCamera scene_camera(const WbClothCameraDef *c)
{
    if (!c->eye_set) {
        WbCamera cam = wb_camera_orbit(c->target, c->yaw, c->pitch, c->distance);
        cam.fov_y = c->fov;
        return cam;
    }
    double dx = c->eye[0] - c->target[0], dy = c->eye[1] - c->target[1];
    double dz = c->eye[2] - c->target[2];
    double dist = sqrt(dx * dx + dy * dy + dz * dz);
    WbCamera cam = {.fov_y = c->fov, .near = dist / 100.0, .far = dist * 100.0};
    memcpy(cam.eye, c->eye, sizeof cam.eye);
    memcpy(cam.target, c->target, sizeof cam.target);
    /* up = +y, or +z when looking straight down or up */
    bool vertical = fabs(dy) > 0.999 * dist;
    cam.up[0] = 0.0;
    cam.up[1] = vertical ? 0.0 : 1.0;
    cam.up[2] = vertical ? -1.0 : 0.0;
    return cam;
}

static void rgb3(float out[3], WbColor c)
{
    out[0] = (float)c.r;
    out[1] = (float)c.g;
    out[2] = (float)c.b;
}

static WbStatus build_view(ClothRun *p, const WbRunnerOptions *opt, int w, int h, WbError *err)
{
    const WbScene *sc = p->scene;
    const WbClothSceneDef *c = &sc->cloth;
    WbClothViewSetup vs = {
        .width = w,
        .height = h,
        .samples = opt->aa,
        .camera = scene_camera(&c->camera),
        .sheen = (float)c->sheen,
        .gloss = (float)c->gloss,
        .floor = c->floor,
        .floor_y = (float)c->floor_y,
    };
    WbColor bg = sc->output.background;
    vs.background[0] = (float)bg.r;
    vs.background[1] = (float)bg.g;
    vs.background[2] = (float)bg.b;
    vs.background[3] = sc->output.transparent ? 0.0f : (float)bg.a;
    rgb3(vs.colour, c->colour);
    rgb3(vs.floor_colour, c->floor_colour);
    WbStatus st = wb_cloth_view_init(&p->view, &vs, err);
    if (st)
        return st;
    p->view_ready = true;
    float rgb[3];
    if (p->def.mannequin) {
        rgb3(rgb, c->mannequin.colour);
        if ((st = wb_cloth_view_add_mannequin(&p->view, &p->def.body, rgb, err)))
            return st;
    }
    for (size_t k = 0; k < c->n_spheres; k++) {
        float ctr[3];
        vec3f(ctr, c->spheres[k].centre);
        rgb3(rgb, c->spheres[k].colour);
        if ((st = wb_cloth_view_add_sphere(&p->view, ctr, (float)c->spheres[k].radius, rgb, err)))
            return st;
    }
    /* box edges drawn rounded by half a link: a fold over an edge cuts the
     * corner by up to about that much between its particles */
    const WbClothDef *d = &p->def;
    float round = 0.5f * fminf(d->size[0] / (float)(d->nx - 1), d->size[1] / (float)(d->ny - 1));
    for (size_t k = 0; k < c->n_boxes; k++) {
        const WbBox *b = &p->def.boxes[k];
        float lo[3], hi[3];
        for (int q = 0; q < 3; q++) {
            lo[q] = b->c[q] - b->h[q];
            hi[q] = b->c[q] + b->h[q];
        }
        rgb3(rgb, c->boxes[k].colour);
        if ((st = wb_cloth_view_add_box(&p->view, lo, hi, round, rgb, err)))
            return st;
    }
    return WB_OK;
}

WbStatus wb_runner_cloth(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt,
                         WbError *err)
{
    const WbClothSceneDef *c = &scene->cloth;
    ClothRun *p = calloc(1, sizeof *p);
    if (!p)
        return wb_error_set(err, WB_E_IO, "out of memory");
    p->scene = scene;
    p->dt = 1.0 / (60.0 * c->substeps);
    p->tl = wb_timeline_dt(scene->events, scene->n_events, p->dt);
    p->live = scene->cloth;
    p->ramps_end = wb_timeline_ramps_end(&p->tl);
    p->hold_steps = wb_runner_steps(ceil(SETTLE_HOLD / p->dt));
    WbStatus st = build_def(p, err);
    p->def.cancel = opt->stop;
    if (st) {
        cloth_destroy(p);
        return st;
    }
    WbError e;
    wb_error_clear(&e);
    if ((st = wb_cloth_init(&p->st, &p->def, &e))) {
        cloth_destroy(p);
        return wb_error_at(err, st, scene->path, 0, 0, "cloth: %s", e.msg);
    }
    p->st_ready = true;
    wb_cloth_normals(&p->st);
    int w, h;
    /* output size: given, or 16:9 from the one given (640 × 360 by default);
     * h/(9/16) and w·(9/16) round exactly as h·16/9 and w·9/16 */
    wb_runner_output_size(&scene->output, 9.0 / 16.0, &w, &h);
    if ((st = build_view(p, opt, w, h, err))) {
        cloth_destroy(p);
        return st;
    }
    *r = (WbRunner){
        .self = p,
        .width = w,
        .height = h,
        .rate = 1.0 / p->dt,
        .alpha = scene->output.transparent,
        .advance = cloth_advance,
        .idle = cloth_idle,
        .changed = cloth_changed,
        .draw = cloth_draw,
        .stats = cloth_stats,
        .fields = cloth_fields,
        .motion = cloth_motion,
        .destroy = cloth_destroy,
    };
    return WB_OK;
}

/* run_jiggle.c — the jiggle kind behind the runner interface (SPEC 4.2).
 *
 * Every fixed step of dt = 1/jiggle.rate: the parent's position at the
 * step's end (drive path, orbit swing or walk bob, times drive.gain) goes
 * through the core's driver (finite differences with smoothing, primed at
 * 0 s so there is no start-up spike) to a parent acceleration — or the
 * acceleration keys are used as is — and every bone takes the core's exact
 * step.  The frame loop's absolute step index drives the steps, so 24, 30
 * and 60 fps renders show the same motion at the same times; and because
 * the step is exact, changing jiggle.rate changes only how densely the
 * curves are sampled, not their shape.
 *
 * 1d: three bones with neutral character (one frequency) at ζ = damp, 1 and
 * 1.7 follow a handle that moves along y; no gravity, colliders or limit
 * (it is the bare equation).  2d: three edge bones of the shape, sized from
 * the painted area of their channel, seeded character, gravity sag (they
 * start at their equilibrium, so a still scene is still), then colliders
 * (floor plane, ring collider) and the limit sphere.  3d: the same three
 * bones on a shape's mesh (jiggle3d_view.h), resting at the weighted
 * centroids of their regions in 3D, colliding with the floor plane and a
 * sphere (the ring collider at z = 0); the camera orbits the shape, and
 * with the orbit drive it swings with the parent's motion.
 *
 * Chain (jiggle.chain): bone 1 hangs off bone 0 and bone 2 off bone 1
 * (the core's chain step, one tissue: def[0]; in 1d ζ = damp for all
 * three).  Each region, mass and overlay bead moves by its joint's tip, the
 * running sum of the offsets; the state is still the links' own offsets.
 * Colliders push joints (wb_jiggle_chain_collide), `limit` bounds each
 * link.  At rest every link sags by its own −g·m_g/ω², as a single bone.
 *
 * Stillness: when no bone moved faster than SETTLE_SPEED for SETTLE_HOLD
 * seconds and the driver has nothing left to do, velocities are zeroed and
 * steps are skipped until a reseed or shake wakes them (the rule depends
 * only on the step sequence, so every frame range agrees).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "io/png.h"
#include "render/jiggle3d_view.h"
#include "render/jiggle_view.h"
#include "run/runner.h"
#include "run/timeline.h"
#include "sim/jiggle.h"
#include "sim/jiggle_outline.h"
#include "sim/weightmap.h"

#define SETTLE_SPEED 1e-3   /* units/s: below this a bone counts as still */
#define SETTLE_HOLD 0.25    /* seconds of stillness before the bones settle */
#define RUNAWAY 1e6         /* units: an offset this large has diverged */
#define OUTLINE_N 256       /* outline points of a 2D shape */
#define ZETA_1D_CRIT 1.0    /* the 1D view's second and third regimes */
#define ZETA_1D_OVER 1.7
#define WORLD_H_2D 3.2      /* world units: height of the 2D world rectangle */
#define WORLD_CY_2D (-0.1)
#define WORLD_H_1D 3.6
#define TRACE_MAX 1048576   /* samples kept for the 1D traces */
#define ASPECT (9.0 / 16.0) /* height / width of the 2D/1D world rectangle, and of the
                               frame when output.width or height is 0 */

typedef struct JiggleRun {
    const WbScene *scene;       /* borrowed; outlives the runner */
    const volatile sig_atomic_t *stop; /* WbRunnerOptions.stop */
    int64_t max_pixels;         /* WbRunnerOptions.max_pixels */
    const WbJiggleSceneDef *jd; /* &live */
    WbJiggleSceneDef live;      /* the scene's block with its ramps applied (timeline.h) */
    int64_t ramps_end;          /* step from which no ramp changes anything (0: none) */
    bool is1d, is3d;
    bool chain;                 /* jiggle.chain: the bones are one chain 0 -> 1 -> 2 */
    double tips[9];             /* chain: the joints' offsets from rest (shown_offsets) */
    WbJiggle bones;
    bool bones_ready;
    WbJiggleDef def[3];         /* per bone (1d: the three regimes) */
    WbJiggleDriver driver;
    WbCollider col[3];
    WbColliders colliders;
    double dt;
    int64_t step;
    WbTimeline tl;             /* the scene's events, fired by step */
    double drive_end;           /* time after which the parent is still (INFINITY = never) */
    double path_cycle;          /* output.loop: period of a drive path that closes, else 0 */
    int64_t still_steps, hold_steps;
    bool settled;
    double max_speed;
    uint64_t generation, drawn_generation;
    bool drawn_once;
    double body[2];             /* parent position at the current step (drawn) */
    double shift[2];            /* the teleports so far, added to the parent's path */
    /* 2d */
    WbOutlineShape shape;
    bool hole;
    float rest_o[2 * OUTLINE_N], rest_i[2 * OUTLINE_N];   /* model frame */
    float w_o[3 * OUTLINE_N], w_i[3 * OUTLINE_N];         /* weights per point */
    float def_o[2 * OUTLINE_N], def_i[2 * OUTLINE_N];     /* deformed, world */
    float rgba_o[4 * OUTLINE_N], rgba_i[4 * OUTLINE_N];
    double bone_rest[9];        /* model frame, z = 0 */
    double bone_weight[3];      /* Σ weight of each bone on the outline */
    /* 1d traces: ring buffer of (t, handle, m0, m1, m2) */
    double *trace;
    int64_t trace_cap, trace_n, trace_head;
    double *trace_xy;           /* scratch for one trace polyline */
    WbJiggleView view;
    bool view_ready;
    /* 3d */
    WbJiggle3View view3;
    bool view3_ready;
    double swing[2];            /* orbit drive: camera yaw, pitch swing now, radians */
    WbTrackRow export_rows[6];  /* wobble export: the bones (a chain: and its tips) */
    float *export_xyz;          /* wobble export: the 3d mesh deformed */
} JiggleRun;

/* The keyed value at time t: from [0, 0] at 0 s through the keys. */
static void keys_at(const WbJigglePathDef *p, double t, double out[2])
{
    wb_timeline_list_at(p, (WbPoint){.x = 0.0, .y = 0.0}, t, out);
}

/* The orbit swing at time t: amplitude · sin(2πt/period), faded in over
 * the first half period by a smoothstep so the camera starts at rest (the
 * swing grows as t³: no start-up jolt for the bones). */
static double orbit_swing(const WbJiggleOrbitDef *o, double t)
{
    double u = fmin(1.0, t / (0.5 * o->period));
    return sin(2.0 * M_PI * t / o->period) * u * u * (3.0 - 2.0 * u);
}

/* The drawn body position and the point the driver measures, at time t. */
static void parent_at(const JiggleRun *p, double t, double body[2], double drive[3])
{
    const WbJiggleDriveDef *d = &p->jd->drive;
    double g = d->gain;
    body[0] = body[1] = 0.0;
    if (d->path.n)
        keys_at(&d->path, wb_timeline_cycle_time(t, p->path_cycle), body);
    else if (d->walk.enabled && d->walk.period > 0)
        body[1] = wb_jiggle_walk_bob(t * (M_PI / WB_JIGGLE_WALK_RATE) / d->walk.period,
                                     d->walk.bob);
    else if (d->walk.enabled)
        body[1] = wb_jiggle_walk_bob(t, d->walk.bob);
    if (!d->path.n && !d->walk.enabled && d->orbit.enabled) {
        /* the camera swings; the body stays, the virtual parent moves */
        double s = orbit_swing(&d->orbit, t);
        const double zero[3] = {0, 0, 0};
        wb_jiggle_drive_point(d->orbit.yaw * s, d->orbit.pitch * s, zero, d->orbit.gain, 0.0,
                              drive);
        drive[0] *= g, drive[1] *= g, drive[2] *= g;
    } else {
        drive[0] = body[0] * g;
        drive[1] = body[1] * g;
        drive[2] = 0.0;
    }
    /* teleports move what is drawn and collides, never what the driver
     * measures: a constant offset has no derivative (none: body as it was,
     * bit for bit, -0.0 included) */
    if (p->shift[0] != 0.0 || p->shift[1] != 0.0) {
        body[0] += p->shift[0];
        body[1] += p->shift[1];
    }
}

/* Teleport: the parent's path is shifted by `by` from now on.  The driver
 * is fed the path without the shift (a constant offset has no derivative),
 * so the jump never reaches the bones: they keep their offsets and
 * velocities, bit for bit, in the parent's frame. */
static void teleport(JiggleRun *p, const WbPoint *by)
{
    p->shift[0] += by->x;
    p->shift[1] += by->y;
    p->body[0] += by->x;
    p->body[1] += by->y;
}

static void bone_rest_world(const JiggleRun *p, double *rest)
{
    for (int b = 0; b < 3; b++) {
        rest[3 * b] = p->body[0] + p->bone_rest[3 * b];
        rest[3 * b + 1] = p->body[1] + p->bone_rest[3 * b + 1];
        rest[3 * b + 2] = p->bone_rest[3 * b + 2];
    }
}

/* What moves the regions, masses and beads: the bones' offsets, or a
 * chain's tips (the running sums), written to p->tips. */
static const double *shown_offsets(JiggleRun *p)
{
    if (!p->chain)
        return p->bones.x;
    wb_jiggle_chain_tips(&p->bones, p->tips);
    return p->tips;
}

/* Colliders and the limit after a step: per bone, or per joint of a chain. */
static void collide(JiggleRun *p)
{
    double rest[9];
    bone_rest_world(p, rest);
    if (p->chain)
        wb_jiggle_chain_collide(&p->bones, &p->colliders, rest);
    else
        wb_jiggle_collide(&p->bones, &p->colliders, rest);
}

/* 2d bones start at their gravity sag x_y = −g·m_g/ω² (at rest: no jolt
 * on the first frame). */
static void to_equilibrium(JiggleRun *p)
{
    WbJiggle *j = &p->bones;
    for (int b = 0; b < j->n; b++) {
        double w, z;
        wb_jiggle_bone_response(j, &p->def[b], b, &w, &z);
        j->x[3 * b] = j->x[3 * b + 2] = 0.0;
        j->x[3 * b + 1] = w > 0 ? -p->def[b].gravity * j->mul_grav[b] / (w * w) : 0.0;
        j->v[3 * b] = j->v[3 * b + 1] = j->v[3 * b + 2] = 0.0;
    }
}

/* The block's ramped numbers at this step, into the solver's defs and the
 * colliders (the drive gain is read from the block as the parent moves). */
static void apply_ramps(JiggleRun *p)
{
    wb_timeline_ramp_block(&p->tl, &p->scene->jiggle, &p->live, p->step);
    const WbJiggleSceneDef *jd = &p->live;
    p->def[0].damp = jd->damp;
    for (int b = 0; b < 3; b++) {
        p->def[b].freq = jd->freq;
        if (!p->is1d) {
            p->def[b].damp = jd->damp;
            p->def[b].gravity = jd->gravity;
        }
    }
    p->colliders.limit = jd->limit;
    p->colliders.restitution = jd->restitution;
}

/* Reset: the bones at rest where the parent is now (2d/3d: their gravity
 * sag), no velocity; the driver keeps measuring the parent's motion. */
static void reset_bones(JiggleRun *p)
{
    if (p->is1d)
        wb_jiggle_reset(&p->bones);
    else
        to_equilibrium(p);
}

static void fire_events(JiggleRun *p)
{
    const WbEvent *ev;
    while ((ev = wb_timeline_due(&p->tl, p->step))) {
        if (ev->type == WB_EVENT_RESEED) {
            wb_jiggle_reseed(&p->bones, ev->u.reseed.seed);
            if (p->is1d)
                wb_jiggle_neutral(&p->bones);
        } else if (ev->type == WB_EVENT_SHAKE) {
            wb_jiggle_shake(&p->bones, ev->u.shake.span);
        } else if (ev->type == WB_EVENT_TELEPORT) {
            teleport(p, &ev->u.teleport.by);
        } else if (ev->type == WB_EVENT_RESET) {
            reset_bones(p);
        } else {
            continue;
        }
        p->settled = false;
        p->still_steps = 0;
    }
}

static WbStatus check_finite(const JiggleRun *p, WbError *err)
{
    const WbJiggle *j = &p->bones;
    for (int b = 0; b < j->n; b++) {
        const double *x = j->x + 3 * b, *v = j->v + 3 * b;
        bool bad = false;
        for (int k = 0; k < 3; k++)
            bad |= !isfinite(x[k]) || !isfinite(v[k]) || fabs(x[k]) > RUNAWAY;
        if (bad)
            return wb_error_set(err, WB_E_DIVERGED,
                                "jiggle bone %d diverged (offset %g, %g, %g) at %.4f s (step "
                                "%lld); check jiggle.freq, damp and the drive", b, x[0], x[1],
                                x[2], (double)(p->step + 1) * p->dt, (long long)(p->step + 1));
    }
    return WB_OK;
}

static void trace_push(JiggleRun *p, double t)
{
    if (!p->trace)
        return;
    int64_t slot = (p->trace_head + p->trace_n) % p->trace_cap;
    if (p->trace_n == p->trace_cap)
        p->trace_head = (p->trace_head + 1) % p->trace_cap;
    else
        p->trace_n++;
    double *s = p->trace + 5 * slot;
    const double *x = shown_offsets(p);
    s[0] = t;
    s[1] = p->body[1];
    for (int b = 0; b < 3; b++)
        s[2 + b] = p->body[1] + x[3 * b + 1];
}

static WbStatus jiggle_advance(void *self, int64_t target, WbError *err)
{
    JiggleRun *p = self;
    WbJiggle *j = &p->bones;
    while (p->step < target) {
        if (wb_runner_stopped(p->stop, err))
            return WB_E_INTERRUPTED;
        fire_events(p);
        double t1 = (double)(p->step + 1) * p->dt;
        bool ramping = p->step < p->ramps_end;
        if (ramping)
            apply_ramps(p);
        bool driving = (double)p->step * p->dt < p->drive_end || ramping;
        if (driving) {
            p->settled = false;
            p->still_steps = 0;
        }
        if (p->settled) {
            p->step++;
            trace_push(p, t1);
            continue;
        }
        double drive[3], accel[3];
        parent_at(p, t1, p->body, drive);
        if (p->jd->drive.accel.n) {
            /* the forcing is held over [t0, t1): its value at the step's
             * midpoint, so a `step` key on a step boundary acts from that
             * step on at every rate (no rounding of t0 can hit the key) */
            double a[2];
            keys_at(&p->jd->drive.accel, ((double)p->step + 0.5) * p->dt, a);
            accel[0] = a[0] * p->jd->drive.gain;
            accel[1] = a[1] * p->jd->drive.gain;
            accel[2] = 0.0;
        } else {
            wb_jiggle_driver_update(&p->driver, p->dt, drive, accel);
        }
        if (p->chain)
            wb_jiggle_chain_step(j, &p->def[0], accel, p->dt);
        else
            for (int b = 0; b < j->n; b++)
                wb_jiggle_step_bone(j, &p->def[b], b, accel, p->dt);
        if (!p->is1d)
            collide(p);
        WbStatus st = check_finite(p, err);
        if (st)
            return st;
        double v2max = 0.0;
        for (int b = 0; b < j->n; b++) {
            const double *v = j->v + 3 * b;
            double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
            v2max = v2 > v2max ? v2 : v2max;
        }
        p->max_speed = sqrt(v2max);
        p->still_steps = p->max_speed < SETTLE_SPEED ? p->still_steps + 1 : 0;
        if (p->still_steps >= p->hold_steps && !driving) {
            memset(j->v, 0, sizeof *j->v * 3 * (size_t)j->n);
            wb_jiggle_driver_reset(&p->driver, drive);
            p->settled = true;
            p->max_speed = 0.0;
        }
        p->generation++;
        p->step++;
        trace_push(p, t1);
    }
    return WB_OK;
}

static void jiggle_fields(void *self, WbFields *f)
{
    JiggleRun *p = self;
    WbJiggle *j = &p->bones;
    size_t n = (size_t)j->n;
    wb_fields_i64(f, "jiggle.step", &p->step, 1);
    wb_fields_size(f, "jiggle.events_fired", &p->tl.next);
    wb_fields_i64(f, "jiggle.still_steps", &p->still_steps, 1);
    wb_fields_bool(f, "jiggle.settled", &p->settled);
    wb_fields_f64(f, "jiggle.max_speed", &p->max_speed, 1);
    wb_fields_u64(f, "jiggle.generation", &p->generation, 1);
    wb_fields_f64(f, "jiggle.body", p->body, 2);
    wb_fields_f64(f, "jiggle.driver_prev", p->driver.prev, 3);
    wb_fields_f64(f, "jiggle.driver_vel", p->driver.vel, 3);
    wb_fields_bool(f, "jiggle.driver_primed", &p->driver.primed);
    wb_fields_f64(f, "jiggle.x", j->x, 3 * n);
    wb_fields_f64(f, "jiggle.v", j->v, 3 * n);
    wb_fields_f64(f, "jiggle.size", j->size, n);
    wb_fields_f64(f, "jiggle.mul_freq", j->mul_freq, n);
    wb_fields_f64(f, "jiggle.mul_damp", j->mul_damp, n);
    wb_fields_f64(f, "jiggle.mul_grav", j->mul_grav, n);
    f->visit(f, "jiggle.seed", WB_FIELD_U32, &j->seed, 1);
    f->visit(f, "jiggle.rng", WB_FIELD_U32, &j->rng.a, 1);
    /* the 1d view draws the traces the past left */
    if (p->trace) {
        wb_fields_i64(f, "jiggle.trace_n", &p->trace_n, 1);
        wb_fields_i64(f, "jiggle.trace_head", &p->trace_head, 1);
        wb_fields_f64(f, "jiggle.trace", p->trace, 5 * (size_t)p->trace_cap);
    }
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
    if (p->trace && (p->trace_n < 0 || p->trace_n > p->trace_cap || p->trace_head < 0 ||
                     p->trace_head >= p->trace_cap))
        p->trace_n = p->trace_head = 0;
    /* the path's shift is no field: it is the sum of the teleports fired so
     * far, added in their order as advance did (the body is a field) */
    p->shift[0] = p->shift[1] = 0.0;
    for (size_t k = 0; k < p->tl.next; k++)
        if (p->tl.events[k].type == WB_EVENT_TELEPORT) {
            p->shift[0] += p->tl.events[k].u.teleport.by.x;
            p->shift[1] += p->tl.events[k].u.teleport.by.y;
        }
}

/* The bones' offsets (a chain: rows "bone,sum": sum 0 the link's own
 * offset, sum 1 its tip, the running sum); in 3d also the shape's mesh
 * deformed by the standard's rule (vertex += Σ_b w_b · offset_b, with a
 * chain's tips, then to the body), without the view's styling. */
static WbStatus jiggle_motion(void *self, WbMotion *m, WbError *err)
{
    JiggleRun *p = self;
    const WbJiggle *j = &p->bones;
    const double *shown = shown_offsets(p);
    int nb = j->n < 3 ? j->n : 3;
    for (int b = 0; b < nb; b++)
        p->export_rows[b] = (WbTrackRow){b, 0, {j->x[3 * b], j->x[3 * b + 1], j->x[3 * b + 2]}};
    *m = (WbMotion){.n_rows = (size_t)nb, .rows = p->export_rows, .columns = "bone,x,y,z"};
    if (p->chain) {
        for (int b = 0; b < nb; b++)
            p->export_rows[nb + b] = (WbTrackRow){b, 1, {shown[3 * b], shown[3 * b + 1],
                                                         shown[3 * b + 2]}};
        m->n_rows = 2 * (size_t)nb;
        m->columns = "bone,sum,x,y,z";
        m->row_b = 1;
    }
    if (!p->is3d)
        return WB_OK;
    const WbMeshBuf *mesh = &p->view3.mesh;
    size_t n = (size_t)mesh->n_vertices;
    if (!p->export_xyz && !(p->export_xyz = malloc(3 * n * sizeof *p->export_xyz)))
        return wb_error_set(err, WB_E_IO, "out of memory");
    memcpy(p->export_xyz, mesh->pos, 3 * n * sizeof *p->export_xyz);
    wb_jiggle_deform(p->export_xyz, 3, n, p->view3.weights, 3, shown);
    for (size_t i = 0; i < n; i++) {
        p->export_xyz[3 * i] += (float)p->body[0];
        p->export_xyz[3 * i + 1] += (float)p->body[1];
    }
    m->n_points = n;
    m->points = p->export_xyz;
    m->n_tris = (size_t)mesh->n_triangles;
    m->tris = mesh->idx;
    return WB_OK;
}

static bool jiggle_idle(void *self)
{
    JiggleRun *p = self;
    return p->settled && wb_timeline_done(&p->tl) &&
           (double)p->step * p->dt >= p->drive_end && p->step >= p->ramps_end;
}

static bool jiggle_changed(void *self)
{
    JiggleRun *p = self;
    /* the 1d traces scroll with time even when nothing moves */
    return !p->drawn_once || p->generation != p->drawn_generation || p->is1d;
}

static void draw_2d(JiggleRun *p)
{
    const WbJiggleSceneDef *jd = p->jd;
    /* vertex += Σ_b w_b · offset_b, then into the world at the body */
    const double *shown = shown_offsets(p);
    memcpy(p->def_o, p->rest_o, sizeof p->def_o);
    wb_jiggle_deform(p->def_o, 2, OUTLINE_N, p->w_o, 3, shown);
    if (p->hole) {
        memcpy(p->def_i, p->rest_i, sizeof p->def_i);
        wb_jiggle_deform(p->def_i, 2, OUTLINE_N, p->w_i, 3, shown);
    }
    for (int i = 0; i < OUTLINE_N; i++) {
        p->def_o[2 * i] += (float)p->body[0];
        p->def_o[2 * i + 1] += (float)p->body[1];
        p->def_i[2 * i] += (float)p->body[0];
        p->def_i[2 * i + 1] += (float)p->body[1];
    }
    WbJiggle2dFrame f = {
        .outer = p->def_o,
        .inner = p->hole ? p->def_i : NULL,
        .rgba_outer = p->rgba_o,
        .rgba_inner = p->rgba_i,
        .n = OUTLINE_N,
        .body = {p->body[0], p->body[1]},
        .colour = jd->colour,
        .floor = jd->floor.enabled,
        .floor_y = jd->floor.y,
        .ring = jd->ring_collider.enabled,
        .ring_x = jd->ring_collider.at.x,
        .ring_y = jd->ring_collider.at.y,
        .ring_r = jd->ring_collider.radius,
        .capsule = jd->capsule_collider.enabled,
        .capsule_ab = {jd->capsule_collider.a.x, jd->capsule_collider.a.y,
                       jd->capsule_collider.b.x, jd->capsule_collider.b.y},
        .capsule_r = jd->capsule_collider.radius,
        .overlay = jd->overlay,
        .chain = p->chain,
    };
    if (jd->overlay) {
        bone_rest_world(p, f.rest);
        memcpy(f.offsets, shown, sizeof f.offsets);
        memcpy(f.bone_weight, p->bone_weight, sizeof f.bone_weight);
    }
    wb_jiggle_view_draw_2d(&p->view, &f);
}

/* 1d: the handle, the masses and their traces (jiggle_view.h). */
static void draw_1d(JiggleRun *p)
{
    const double *x = shown_offsets(p);
    WbJiggle1dFrame f = {
        .now = (double)p->step * p->dt,
        .window = p->jd->window,
        .handle = p->body[1],
        .mass = {x[1], x[4], x[7]},
        .chain = p->chain,
        .trace = p->trace,
        .trace_cap = p->trace_cap,
        .trace_n = p->trace_n,
        .trace_head = p->trace_head,
        .scratch = p->trace_xy,
    };
    wb_jiggle_view_draw_1d(&p->view, &f);
}

/* 3d: the camera orbits the shape's centre from camera.yaw/pitch, swung
 * by the orbit drive's angles when it drives. */
static WbStatus draw_3d(JiggleRun *p, WbPool *pool, WbImage *out, WbError *err)
{
    const WbJiggleSceneDef *jd = p->jd;
    double yaw = jd->camera.yaw, pitch = jd->camera.pitch;
    if (jd->drive.orbit.enabled) {
        double s = orbit_swing(&jd->drive.orbit, (double)p->step * p->dt);
        yaw += jd->drive.orbit.yaw * s * (180.0 / M_PI);
        pitch += jd->drive.orbit.pitch * s * (180.0 / M_PI);
    }
    WbJiggle3Frame f = {
        .offsets = shown_offsets(p),
        .chain = p->chain,
        .body = {p->body[0], p->body[1], 0.0},
        .yaw = yaw,
        .pitch = fmax(-89.0, fmin(89.0, pitch)),
        .distance = jd->camera.distance,
        .fov = jd->camera.fov,
        .overlay = jd->overlay,
    };
    WbStatus st = wb_jiggle3_view_draw(&p->view3, &f, pool, out, err);
    p->drawn_generation = p->generation;
    p->drawn_once = true;
    return st;
}

static WbStatus jiggle_draw(void *self, WbPool *pool, WbImage *out, WbError *err)
{
    JiggleRun *p = self;
    if (p->is3d)
        return draw_3d(p, pool, out, err);
    wb_jiggle_view_begin(&p->view);
    if (p->is1d)
        draw_1d(p);
    else
        draw_2d(p);
    WbStatus st = wb_jiggle_view_end(&p->view, pool, out, err);
    p->drawn_generation = p->generation;
    p->drawn_once = true;
    return st;
}

static void jiggle_stats(void *self, WbFrameStats *fs)
{
    JiggleRun *p = self;
    const WbJiggle *j = &p->bones;
    const double *shown = shown_offsets(p);
    double worst = 0.0;
    for (int b = 0; b < j->n; b++) {
        const double *x = shown + 3 * b;
        double d = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        worst = d > worst ? d : worst;
    }
    size_t n = 3 * (size_t)j->n;
    uint64_t h = WB_FNV1A_SEED;
    h = wb_fnv1a(h, j->x, n * sizeof *j->x);
    h = wb_fnv1a(h, j->v, n * sizeof *j->v);
    fs->moving = !p->settled;
    fs->max_displacement = worst; /* jiggle: the largest bone offset (chain: tip), world units */
    fs->max_speed = p->max_speed;
    fs->hash = h;
}

static void jiggle_destroy(void *self)
{
    JiggleRun *p = self;
    if (!p)
        return;
    if (p->view_ready)
        wb_jiggle_view_free(&p->view);
    if (p->view3_ready)
        wb_jiggle3_view_free(&p->view3);
    if (p->bones_ready)
        wb_jiggle_free(&p->bones);
    free(p->trace);
    free(p->trace_xy);
    free(p->export_xyz);
    free(p);
}

/* The 3d mesh's entry in weightmap.h's table of shapes. */
static WbWeightShape weight_shape(WbJiggleShape s)
{
    switch (s) {
    case WB_JIGGLE_SHAPE_TORUS: return WB_WEIGHT_TORUS;
    case WB_JIGGLE_SHAPE_DANCER: return WB_WEIGHT_DANCER;
    case WB_JIGGLE_SHAPE_WALKER: return WB_WEIGHT_WALKER;
    case WB_JIGGLE_SHAPE_CAPSULE: return WB_WEIGHT_CAPSULE;
    default: return WB_WEIGHT_ORB;
    }
}

/* The weight map of a 2d or 3d scene: the file (any size) or the shape's
 * preset at 512×256, blurred by force_radius, scaled by the region gains. */
static WbStatus load_weights(JiggleRun *p, WbWeightMap *m, uint32_t *seed, WbError *err)
{
    const WbJiggleSceneDef *jd = p->jd;
    WbStatus st;
    if (jd->weights[0]) {
        WbImage img;
        WbRunnerOptions limit = {.max_pixels = p->max_pixels};
        if ((st = wb_runner_check_pixels(jd->weights, &limit, err)) ||
            (st = wb_png_read(jd->weights, &img, err)))
            return st;
        st = wb_weightmap_from_image(m, &img, err);
        wb_image_free(&img);
        if (st)
            return st;
        wb_weightmap_seed_from_name(jd->weights, seed);
    } else {
        /* the preset through its 8-bit PNG form, so a render with the map
         * `wobble weights export` writes is the same render */
        WbWeightMap paint;
        WbImage img;
        if ((st = wb_weightmap_init(&paint, WB_WEIGHTMAP_DEFAULT_W, WB_WEIGHTMAP_DEFAULT_H, err)))
            return st;
        if (p->is3d)
            wb_weightmap_preset(&paint, weight_shape(jd->shape));
        else
            wb_outline_preset(&paint, p->shape);
        st = wb_weightmap_to_image(&paint, &img, err);
        wb_weightmap_free(&paint);
        if (st)
            return st;
        st = wb_weightmap_from_image(m, &img, err);
        wb_image_free(&img);
        if (st)
            return st;
    }
    if (jd->force_radius > 0 &&
        (st = wb_weightmap_blur(m, m, wb_weightmap_force_radius_px(m, jd->force_radius), err))) {
        wb_weightmap_free(m);
        return st;
    }
    const double bone[3] = {jd->gain.bone0, jd->gain.bone1, jd->gain.bone2};
    wb_weightmap_gains(m, jd->gain.all, bone);
    return WB_OK;
}

static void sample_outline(const WbWeightMap *m, const float *pts, float *w)
{
    for (int i = 0; i < OUTLINE_N; i++) {
        double uv[2];
        wb_outline_uv(pts[2 * i], pts[2 * i + 1], uv);
        wb_weightmap_sample(m, uv[0], uv[1], w + 3 * i);
    }
}

static void setup_colliders(JiggleRun *p);

static WbStatus setup_2d(JiggleRun *p, uint32_t *seed, WbError *err)
{
    const WbJiggleSceneDef *jd = p->jd;
    p->shape = (WbOutlineShape)jd->shape;
    p->hole = wb_outline_has_hole(p->shape);
    wb_outline_points(p->shape, OUTLINE_N, p->rest_o, p->rest_i);
    WbWeightMap m;
    WbStatus st = load_weights(p, &m, seed, err);
    if (st)
        return st;
    sample_outline(&m, p->rest_o, p->w_o);
    if (p->hole)
        sample_outline(&m, p->rest_i, p->w_i);
    double area[3];
    wb_weightmap_area(&m, area);
    wb_weightmap_free(&m);
    /* each bone rests at the weighted centroid of the outline it moves */
    for (int b = 0; b < 3; b++) {
        double sw = 0, sx = 0, sy = 0;
        for (int pass = 0; pass < (p->hole ? 2 : 1); pass++) {
            const float *pts = pass ? p->rest_i : p->rest_o, *w = pass ? p->w_i : p->w_o;
            for (int i = 0; i < OUTLINE_N; i++) {
                sw += w[3 * i + b];
                sx += w[3 * i + b] * pts[2 * i];
                sy += w[3 * i + b] * pts[2 * i + 1];
            }
        }
        p->bone_weight[b] = sw;
        p->bone_rest[3 * b] = sw > 0 ? sx / sw : 0.0;
        p->bone_rest[3 * b + 1] = sw > 0 ? sy / sw : 0.0;
        p->bone_rest[3 * b + 2] = 0.0;
        p->bones.size[b] = wb_jiggle_size_from_area(area[b], WB_JIGGLE_AREA_REF_DEFAULT);
    }
    for (int i = 0; i < OUTLINE_N; i++) {
        wb_jiggle_view_tint(p->w_o + 3 * i, jd->colour, p->rgba_o + 4 * i);
        wb_jiggle_view_tint(p->w_i + 3 * i, jd->colour, p->rgba_i + 4 * i);
    }
    setup_colliders(p);
    return WB_OK;
}

/* Floor plane, ring collider (a sphere at z = 0) and capsule collider (its
 * axis at z = 0), then the limit. */
static void setup_colliders(JiggleRun *p)
{
    const WbJiggleSceneDef *jd = p->jd;
    int nc = 0;
    if (jd->floor.enabled)
        p->col[nc++] = wb_collider_plane(0.0, 1.0, 0.0, jd->floor.y);
    if (jd->ring_collider.enabled)
        p->col[nc++] = wb_collider_sphere(jd->ring_collider.at.x, jd->ring_collider.at.y, 0.0,
                                          jd->ring_collider.radius);
    if (jd->capsule_collider.enabled) {
        const WbJiggleCapsuleColliderDef *c = &jd->capsule_collider;
        const double a[3] = {c->a.x, c->a.y, 0.0}, b[3] = {c->b.x, c->b.y, 0.0};
        p->col[nc++] = wb_collider_capsule(a, b, c->radius);
    }
    p->colliders = (WbColliders){p->col, nc, jd->limit, jd->restitution};
}

/* A weight map the run could not read (e): an error at jiggle.weights'
 * place when the scene or a --set wrote the key, else named by the key. */
static WbStatus weights_error(const JiggleRun *p, WbStatus st, const WbError *e, WbError *err)
{
    const WbPlace *at = &p->scene->jiggle_weights_at;
    if (st == WB_E_INPUT && at->line > 0 && e->line <= 0) {
        *err = *e;
        return wb_runner_at_key(st, p->scene, at, "jiggle.weights", err);
    }
    return wb_error_at(err, st, p->scene->path, 0, 0, "jiggle.weights: %s", e->msg);
}

/* 3d: the view builds the mesh and samples the map; the bones rest at the
 * weighted centroids of their regions on the mesh, sized from the map. */
static WbStatus setup_3d(JiggleRun *p, const WbRunnerOptions *opt, int w, int h, uint32_t *seed,
                         WbError *err)
{
    const WbJiggleSceneDef *jd = p->jd;
    const WbScene *sc = p->scene;
    WbWeightMap m;
    WbError e;
    wb_error_clear(&e);
    WbStatus st = load_weights(p, &m, seed, &e);
    if (st)
        return weights_error(p, st, &e, err);
    WbJiggle3Setup s = {
        .width = w,
        .height = h,
        .samples = opt->aa,
        .shape = weight_shape(jd->shape),
        .colour = jd->colour,
        .background = sc->output.background,
        .transparent = sc->output.transparent,
        .heatmap = jd->heatmap,
        .squash = jd->squash,
        .floor = jd->floor.enabled,
        .floor_y = jd->floor.y,
        .sphere = jd->ring_collider.enabled,
        .sphere_at = {jd->ring_collider.at.x, jd->ring_collider.at.y, 0.0},
        .sphere_r = jd->ring_collider.radius,
        .capsule = jd->capsule_collider.enabled,
        .capsule_a = {jd->capsule_collider.a.x, jd->capsule_collider.a.y, 0.0},
        .capsule_b = {jd->capsule_collider.b.x, jd->capsule_collider.b.y, 0.0},
        .capsule_r = jd->capsule_collider.radius,
    };
    st = wb_jiggle3_view_init(&p->view3, &s, &m, err);
    double area[3];
    wb_weightmap_area(&m, area);
    wb_weightmap_free(&m);
    if (st)
        return st;
    p->view3_ready = true;
    for (int b = 0; b < 3; b++) {
        p->bone_weight[b] = p->view3.bone_weight[b];
        p->bones.size[b] = wb_jiggle_size_from_area(area[b], WB_JIGGLE_AREA_REF_DEFAULT);
    }
    memcpy(p->bone_rest, p->view3.bone_rest, sizeof p->bone_rest);
    setup_colliders(p);
    return WB_OK;
}

/* When the parent stops moving: the last path / accel key, never for the
 * periodic drivers, plus the driver's smoothing tail. */
static double drive_end(const WbJiggleDriveDef *d)
{
    if (d->orbit.enabled || d->walk.enabled)
        return INFINITY;
    double end = 0.0;
    if (d->path.n)
        end = d->path.keys[d->path.n - 1].time;
    if (d->accel.n)
        end = d->accel.keys[d->accel.n - 1].time;
    return end > 0 ? end + 10.0 * d->smoothing : 0.0;
}

WbStatus wb_runner_jiggle(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt,
                          WbError *err)
{
    JiggleRun *p = calloc(1, sizeof *p);
    if (!p)
        return wb_error_set(err, WB_E_IO, "out of memory");
    p->scene = scene;
    p->stop = opt->stop;
    p->max_pixels = opt->max_pixels;
    p->live = scene->jiggle;
    p->jd = &p->live;
    const WbJiggleSceneDef *jd = p->jd;
    p->is1d = jd->view == WB_JIGGLE_VIEW_1D;
    p->is3d = jd->view == WB_JIGGLE_VIEW_3D;
    p->chain = jd->chain;
    p->dt = 1.0 / jd->rate;
    p->tl = wb_timeline_dt(scene->events, scene->n_events, p->dt);
    p->ramps_end = wb_timeline_ramps_end(&p->tl);
    p->hold_steps = wb_runner_steps(ceil(SETTLE_HOLD * jd->rate));
    p->drive_end = drive_end(&jd->drive);
    /* under output.loop a drive path that closes repeats (timeline.h) */
    if (scene->output.loop)
        p->path_cycle = wb_timeline_list_cycle(&jd->drive.path, (WbPoint){.x = 0.0, .y = 0.0});
    if (p->path_cycle > 0)
        p->drive_end = INFINITY;
    uint32_t seed = scene->seed;
    WbStatus st = wb_jiggle_init(&p->bones, 3, seed, err);
    if (st) {
        free(p);
        return st;
    }
    p->bones_ready = true;
    for (int b = 0; b < 3; b++)
        p->def[b] = (WbJiggleDef){jd->freq, jd->damp, p->is1d ? 0.0 : jd->gravity};
    if (p->is1d) {
        p->def[1].damp = ZETA_1D_CRIT;
        p->def[2].damp = ZETA_1D_OVER;
        wb_jiggle_neutral(&p->bones);
        double cap = ceil(jd->window * jd->rate) + 4;
        p->trace_cap = cap > TRACE_MAX ? TRACE_MAX : (int64_t)cap;
        p->trace = malloc(sizeof *p->trace * 5 * (size_t)p->trace_cap);
        p->trace_xy = malloc(sizeof *p->trace_xy * 2 * (size_t)(p->trace_cap + 2));
        if (!p->trace || !p->trace_xy) {
            jiggle_destroy(p);
            return wb_error_set(err, WB_E_IO, "out of memory");
        }
    } else {
        WbError e;
        wb_error_clear(&e);
        int w, h;
        wb_runner_output_size(&scene->output, ASPECT, &w, &h);
        bool is3d = p->is3d;
        if (is3d ? (st = setup_3d(p, opt, w, h, &seed, err)) != WB_OK
                 : (st = setup_2d(p, &seed, &e)) != WB_OK) {
            if (!is3d)
                st = weights_error(p, st, &e, err);
            jiggle_destroy(p);
            return st;
        }
        if (seed != scene->seed)
            wb_jiggle_reseed(&p->bones, seed); /* seed-<n> in the map's name */
        to_equilibrium(p);
    }
    double drive[3];
    parent_at(p, 0.0, p->body, drive);
    p->driver = wb_jiggle_driver_make(jd->drive.smoothing);
    wb_jiggle_driver_reset(&p->driver, drive);
    if (!p->is1d)
        collide(p);
    trace_push(p, 0.0);
    int w, h;
    wb_runner_output_size(&scene->output, ASPECT, &w, &h);
    WbJiggleViewSetup vs = {
        .width = w,
        .height = h,
        .samples = opt->aa,
        .cx = 0.0,
        .cy = p->is1d ? -0.05 : WORLD_CY_2D,
        .world_h = p->is1d ? WORLD_H_1D : WORLD_H_2D,
        /* the scene is the ASPECT-shaped world rectangle: output.fit frames
         * all of it (fit) or covers the frame with it (fill), so a portrait
         * or 4:3 frame no longer cuts the sides off */
        .world_w = (p->is1d ? WORLD_H_1D : WORLD_H_2D) / ASPECT,
        .fit = scene->output.fit,
        .background = scene->output.background,
        .transparent = scene->output.transparent,
    };
    if (!p->is3d) {
        if ((st = wb_jiggle_view_init(&p->view, &vs, err))) {
            jiggle_destroy(p);
            return st;
        }
        p->view_ready = true;
    }
    *r = (WbRunner){
        .self = p,
        .width = w,
        .height = h,
        .rate = jd->rate,
        .alpha = scene->output.transparent,
        .advance = jiggle_advance,
        .idle = jiggle_idle,
        .changed = jiggle_changed,
        .draw = jiggle_draw,
        .stats = jiggle_stats,
        .fields = jiggle_fields,
        .motion = jiggle_motion,
        .destroy = jiggle_destroy,
    };
    return WB_OK;
}

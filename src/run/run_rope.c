/* run_rope.c — the rope kind behind the runner interface: the scene's ropes
 * and obstacles become a WbRopeSetDef, the frame loop's absolute step index
 * drives wb_rope_step directly (the bake is the render: one fixed-dt path,
 * so 24, 30 and 60 fps renders show the same motion), timeline cuts fire
 * on the step their time falls on, and rope_view draws the result.
 *
 * Anchor paths (eased keyframes) are evaluated here rather than by the
 * solver's own path kinds, which know no easing: before each step a moving
 * anchor's previous position is kept and the new one written, exactly what
 * the solver does for its built-in paths, so the rope sees the anchor's
 * velocity.
 *
 * Size: a rope collides with the obstacles as thick as it is drawn (half
 * its width, in metres, is the solver's particle radius) and a weight with
 * the disc drawn for it (size_ropes).
 *
 * Stillness: after a step in which no particle moved faster than
 * rope.settle_speed, and that for SETTLE_HOLD seconds running (a pendulum
 * at the top of its swing is slow for an instant, not for a quarter of a
 * second), the ropes are settled: implicit velocities are zeroed and steps
 * are skipped until a cut or an anchor path wakes them.  The rule depends
 * only on the step sequence, so every render of a frame range agrees.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "render/rope_view.h"
#include "run/runner.h"
#include "run/timeline.h"
#include "sim/rope.h"

#define SETTLE_HOLD 0.25   /* seconds below settle_speed before the ropes count as still */
#define RUNAWAY 1e6f       /* metres: a particle this far out has diverged */
/* A link (not cut) this many times its rest length has exploded while
 * staying finite; the examples stay within a few percent. */
#define STRETCH_MAX 100.0f

/* How big a rope is drawn, and so how big it collides (rope.h's radius and
 * end_radius): the solver gets the same numbers in metres that the view
 * draws in pixels. */
typedef struct RopeSize {
    float width_px;        /* drawn width, pixels (at least 0.5) */
    float radius;          /* half the width, metres */
    float weight_r;        /* end weight's disc radius, metres; 0 = no weight drawn */
} RopeSize;

typedef struct RopeRun {
    const WbScene *scene;  /* borrowed; outlives the runner */
    const volatile sig_atomic_t *stop; /* WbRunnerOptions.stop */
    WbRopeSetDef def;
    WbRopeState st;
    bool st_ready;
    WbRopeView view;
    bool view_ready;
    double dt;             /* scene step, s */
    int64_t step;          /* steps taken (absolute index) */
    WbTimeline tl;             /* the scene's events, fired by step */
    WbRopeSceneDef live;   /* the rope block's numbers with their ramps applied (shallow) */
    int64_t ramps_end;     /* step from which no ramp changes anything (0: none) */
    double paths_end;      /* time of the last anchor key */
    float shift[2];        /* the teleports so far, added to the anchor paths */
    int64_t still_steps;   /* consecutive steps below settle_speed */
    int64_t hold_steps;
    bool settled;
    double max_speed;      /* of the last step taken, m/s */
    uint64_t generation, drawn_generation;
    bool drawn_once;
    RopeSize *size;        /* per rope */
    WbRopeViewLine *lines; /* per rope: how the view draws it */
    WbRopeViewObstacle *obstacles; /* per obstacle */
    WbTrackRow *export_rows; /* wobble export: one per particle */
} RopeRun;

/* The anchor at time t: from `start` at 0 s through the keys. */
static void path_at(const WbRopePathDef *p, WbPoint start, double t, float *x, float *y)
{
    double at[2];
    wb_timeline_list_at(p, start, t, at);
    *x = (float)at[0];
    *y = (float)at[1];
}

static bool pins_start(WbRopePin p) { return p == WB_ROPE_PIN_BOTH || p == WB_ROPE_PIN_START; }
static bool pins_end(WbRopePin p) { return p == WB_ROPE_PIN_BOTH || p == WB_ROPE_PIN_END; }

static void build_def(RopeRun *p, const WbRopeSceneDef *r)
{
    WbRopeSetDef *d = &p->def;
    *d = wb_rope_default();
    d->solver = r->solver == WB_ROPE_SOLVER_CHAIN ? WB_ROPE_CHAIN : WB_ROPE_JAKOBSEN;
    d->passes = r->passes;
    d->damping = (float)r->damping;
    d->gravity[0] = 0.0f;
    d->gravity[1] = (float)r->gravity; /* y down */
    d->step = (float)r->step;
    d->max_frame_delta = (float)r->max_frame_delta;
    d->n_ropes = (int)r->n_ropes;
    for (size_t i = 0; i < r->n_ropes; i++) {
        const WbRopeLineDef *l = &r->ropes[i];
        WbRopeSpec *sp = &d->ropes[i];
        *sp = wb_rope_spec((float)l->from.x, (float)l->from.y, (float)l->to.x, (float)l->to.y,
                           l->nodes);
        sp->length = (float)l->length;
        sp->pin_start = pins_start(l->pin);
        sp->pin_end = pins_end(l->pin);
        sp->move_start = sp->move_end = false; /* paths are driven here, with easing */
        sp->end_mass = (float)l->end_mass;
        /* collide with the size drawn: half the width, the weight's disc */
        sp->radius = p->size[i].radius;
        sp->end_radius = p->size[i].weight_r;
        if (l->start_path.n && l->start_path.keys[l->start_path.n - 1].time > p->paths_end)
            p->paths_end = l->start_path.keys[l->start_path.n - 1].time;
        if (l->end_path.n && l->end_path.keys[l->end_path.n - 1].time > p->paths_end)
            p->paths_end = l->end_path.keys[l->end_path.n - 1].time;
        if (p->scene->output.loop && (wb_timeline_list_cycle(&l->start_path, l->from) > 0 ||
                                      wb_timeline_list_cycle(&l->end_path, l->to) > 0))
            p->paths_end = INFINITY;   /* a path that closes repeats under a loop */
    }
    d->n_obstacles = (int)r->n_obstacles;
    for (size_t o = 0; o < r->n_obstacles; o++) {
        const WbRopeObstacleDef *src = &r->obstacles[o];
        WbRopePoly *poly = &d->obstacles[o];
        poly->n = src->n;
        for (int k = 0; k < src->n; k++) {
            poly->x[k] = (float)src->x[k];
            poly->y[k] = (float)src->y[k];
        }
    }
}

/* A rope whose ends start at one point (from == to with a length) has no
 * chord to sag from: left coincident, its links would be pushed apart along
 * one fixed direction into an exactly vertical accordion or column that no
 * force ever tips over (a 1.5 m rope stayed a 10 cm stub, or stood straight
 * up with the chain solver).  It starts hanging straight down (+y) from its
 * pinned end instead, folded in the middle when both ends are pinned. */
static void lay_out_hanging(WbRopeState *s, int r, double L, bool pin_start, bool pin_end)
{
    int a = s->rope_first[r], m = s->rope_first[r + 1] - a;
    double x0 = s->x[a], y0 = s->y[a], step = L / (m - 1);
    for (int k = 0; k < m; k++) {
        /* distance below the top: from the start, from the end, or a fold */
        int d = pin_start && pin_end ? (k <= (m - 1) / 2 ? k : m - 1 - k)
                : pin_end            ? m - 1 - k
                                     : k;
        s->x[a + k] = s->px[a + k] = (float)x0;
        s->y[a + k] = s->py[a + k] = (float)(y0 + step * d);
    }
    /* An odd number of links folds with one link lying across the bottom:
     * the rising half leans from x0 + step at the bottom back to the
     * anchor, its links a little over length (the first steps pull them
     * in), instead of two particles sitting on one point. */
    int depth = (m - 1) / 2; /* 0 for a single link pinned at both ends: nothing to lay */
    if (pin_start && pin_end && (m - 1) % 2 && depth > 0) {
        for (int k = depth + 1; k < m; k++) {
            float lean = (float)(step * (double)(m - 1 - k) / depth);
            s->x[a + k] = s->px[a + k] = (float)x0 + lean;
        }
    }
}

/* A rope longer than the distance between its ends starts on a sagging
 * arc of its own length instead of squeezed onto the straight line (where
 * its over-long links would buckle into a zigzag on the first step): the
 * parabola y' = h·4u(1−u) off the chord, h found by bisection on the arc
 * length, the particles at equal arc length along it. */
#define ARC_SAMPLES 512

static void lay_out_slack(WbRopeState *s, int r, double L, bool pin_start, bool pin_end)
{
    int a = s->rope_first[r], m = s->rope_first[r + 1] - a;
    double x0 = s->x[a], y0 = s->y[a], x1 = s->x[a + m - 1], y1 = s->y[a + m - 1];
    double dx = x1 - x0, dy = y1 - y0, span = sqrt(dx * dx + dy * dy);
    if (span <= 0.0) {
        lay_out_hanging(s, r, L, pin_start, pin_end);
        return;
    }
    if (!(L > span * 1.0001))
        return;
    /* the chord's normal that points down (+y); straight down chords sag
     * towards +x */
    double nx = -dy / span, ny = dx / span;
    if (ny < 0 || (ny == 0 && nx < 0)) {
        nx = -nx;
        ny = -ny;
    }
    double lo = 0.0, hi = L, h = 0.0;
    for (int it = 0; it < 60; it++) {
        h = 0.5 * (lo + hi);
        double len = 0.0, px = x0, py = y0;
        for (int i = 1; i <= ARC_SAMPLES; i++) {
            double u = (double)i / ARC_SAMPLES, off = h * 4.0 * u * (1.0 - u);
            double qx = x0 + dx * u + nx * off, qy = y0 + dy * u + ny * off;
            len += sqrt((qx - px) * (qx - px) + (qy - py) * (qy - py));
            px = qx;
            py = qy;
        }
        if (len < L)
            lo = h;
        else
            hi = h;
    }
    /* walk the arc, dropping a particle every L/(m−1) */
    double step = L / (m - 1), px = x0, py = y0, total = 0.0;
    int k = 1;
    for (int i = 1; i <= ARC_SAMPLES && k < m - 1; i++) {
        double u = (double)i / ARC_SAMPLES, off = h * 4.0 * u * (1.0 - u);
        double qx = x0 + dx * u + nx * off, qy = y0 + dy * u + ny * off;
        double seg = sqrt((qx - px) * (qx - px) + (qy - py) * (qy - py));
        while (k < m - 1 && total + seg >= k * step) {
            double f = seg > 0 ? (k * step - total) / seg : 0.0;
            s->x[a + k] = s->px[a + k] = (float)(px + (qx - px) * f);
            s->y[a + k] = s->py[a + k] = (float)(py + (qy - py) * f);
            k++;
        }
        total += seg;
        px = qx;
        py = qy;
    }
}

static void move_anchors(RopeRun *p, double t)
{
    const WbRopeSceneDef *r = &p->scene->rope;
    WbRopeState *s = &p->st;
    for (size_t i = 0; i < r->n_ropes; i++) {
        const WbRopeLineDef *l = &r->ropes[i];
        int ends[2] = {s->rope_first[i], s->rope_first[i + 1] - 1};
        const WbRopePathDef *paths[2] = {&l->start_path, &l->end_path};
        WbPoint from[2] = {l->from, l->to};
        for (int e = 0; e < 2; e++) {
            if (!paths[e]->n)
                continue;
            int k = ends[e];
            s->px[k] = s->x[k];
            s->py[k] = s->y[k];
            /* under output.loop a path that closes repeats (timeline.h) */
            double c = p->scene->output.loop ? wb_timeline_list_cycle(paths[e], from[e]) : 0.0;
            path_at(paths[e], from[e], wb_timeline_cycle_time(t, c), &s->x[k], &s->y[k]);
            s->x[k] += p->shift[0];
            s->y[k] += p->shift[1];
        }
    }
}

/* Teleport: every particle, its previous position (so its Verlet velocity
 * is kept) and the anchor paths move by `by`: the ropes' shape and motion
 * go along, only the obstacles stay where they are. */
static void teleport(RopeRun *p, const WbPoint *by)
{
    WbRopeState *s = &p->st;
    float dx = (float)by->x, dy = (float)by->y;
    p->shift[0] += dx;
    p->shift[1] += dy;
    for (int k = 0; k < s->n; k++) {
        s->x[k] += dx;
        s->px[k] += dx;
        s->y[k] += dy;
        s->py[k] += dy;
    }
}

/* Reset: every particle at rest where it is (no implicit velocity left). */
static void reset_rope(RopeRun *p)
{
    WbRopeState *s = &p->st;
    memcpy(s->px, s->x, sizeof *s->x * (size_t)s->n);
    memcpy(s->py, s->y, sizeof *s->y * (size_t)s->n);
}

static WbStatus fire_events(RopeRun *p, WbError *err)
{
    const WbScene *sc = p->scene;
    const WbEvent *ev;
    while ((ev = wb_timeline_due(&p->tl, p->step))) {
        if (ev->type == WB_EVENT_TELEPORT || ev->type == WB_EVENT_RESET) {
            if (ev->type == WB_EVENT_TELEPORT)
                teleport(p, &ev->u.teleport.by);
            else
                reset_rope(p);
            p->settled = false;
            p->still_steps = 0;
            continue;
        }
        if (ev->type != WB_EVENT_CUT)
            continue;
        WbError e;
        wb_error_clear(&e);
        if (wb_rope_cut(&p->st, ev->u.cut.rope, ev->u.cut.link, &e))
            return wb_error_at(err, WB_E_INPUT, sc->path, ev->src_line, ev->src_col, "%s", e.msg);
        p->settled = false;
        p->still_steps = 0;
    }
    return WB_OK;
}

static WbStatus check_finite(RopeRun *p, WbError *err)
{
    const WbRopeState *s = &p->st;
    int bad = wb_rope_find_nonfinite(s);
    for (int k = 0; bad < 0 && k < s->n; k++)
        if (fabsf(s->x[k]) > RUNAWAY || fabsf(s->y[k]) > RUNAWAY)
            bad = k;
    float ratio = 0.0f;
    for (int l = 0; bad < 0 && l < s->n_links; l++) {
        if (!s->active[l] || !(s->rest[l] > 0.0f))
            continue;
        float dx = s->x[s->lb[l]] - s->x[s->la[l]], dy = s->y[s->lb[l]] - s->y[s->la[l]];
        float lim = STRETCH_MAX * s->rest[l];
        if (dx * dx + dy * dy > lim * lim) {
            bad = s->la[l];
            ratio = sqrtf(dx * dx + dy * dy) / s->rest[l];
        }
    }
    if (bad < 0)
        return WB_OK;
    char how[64] = "";
    if (ratio > 0.0f)
        snprintf(how, sizeof how, ", a link stretched %.0f times its rest length", (double)ratio);
    int r = 0;
    while (r + 1 < s->n_ropes && s->rope_first[r + 1] <= bad)
        r++;
    /* the hint names what is left to try (solver: chain is no cure for itself) */
    const char *hint = p->def.solver == WB_ROPE_CHAIN ? "try a smaller rope.step or more passes"
                                                      : "try more passes, a smaller rope.step "
                                                        "or solver: chain";
    return wb_error_set(err, WB_E_DIVERGED,
                        "rope %d node %d diverged (position %g, %g%s) at %.4f s (step %lld); %s",
                        r, bad - s->rope_first[r], (double)s->x[bad], (double)s->y[bad], how,
                        (double)(p->step + 1) * p->dt, (long long)(p->step + 1), hint);
}

/* The ramped numbers of the rope block at this step (timeline.h). */
static void apply_ramps(RopeRun *p)
{
    wb_timeline_ramp_block(&p->tl, &p->scene->rope, &p->live, p->step);
    p->def.damping = (float)p->live.damping;
    p->def.gravity[1] = (float)p->live.gravity;
}

static WbStatus rope_advance(void *self, int64_t target, WbError *err)
{
    RopeRun *p = self;
    WbRopeState *s = &p->st;
    while (p->step < target) {
        if (wb_runner_stopped(p->stop, err))
            return WB_E_INTERRUPTED;
        WbStatus st = fire_events(p, err);
        if (st)
            return st;
        double t1 = (double)(p->step + 1) * p->dt;
        bool ramping = p->step < p->ramps_end;
        if (ramping)
            apply_ramps(p);
        bool anchors_moving = p->step * p->dt < p->paths_end || ramping;
        if (anchors_moving) {
            p->settled = false;
            p->still_steps = 0;
        }
        if (p->settled) {
            p->step++;
            continue;
        }
        move_anchors(p, t1);
        wb_rope_step(s, &p->def);
        if ((st = check_finite(p, err)))
            return st;
        double v2max = 0.0;
        for (int k = 0; k < s->n; k++) {
            double vx = (double)s->x[k] - s->px[k], vy = (double)s->y[k] - s->py[k];
            double v2 = vx * vx + vy * vy;
            if (v2 > v2max)
                v2max = v2;
        }
        p->max_speed = sqrt(v2max) / p->dt;
        p->still_steps = p->max_speed < p->scene->rope.settle_speed ? p->still_steps + 1 : 0;
        if (p->still_steps >= p->hold_steps && !anchors_moving) {
            /* settle: no implicit velocity left to carry into later steps */
            memcpy(s->px, s->x, sizeof *s->x * (size_t)s->n);
            memcpy(s->py, s->y, sizeof *s->y * (size_t)s->n);
            p->settled = true;
            p->max_speed = 0.0;
        }
        p->generation++;
        p->step++;
    }
    return WB_OK;
}

static void rope_fields(void *self, WbFields *f)
{
    RopeRun *p = self;
    WbRopeState *s = &p->st;
    size_t n = (size_t)s->n, nl = (size_t)s->n_links;
    wb_fields_i64(f, "rope.step", &p->step, 1);
    wb_fields_size(f, "rope.events_fired", &p->tl.next);
    wb_fields_i64(f, "rope.still_steps", &p->still_steps, 1);
    wb_fields_bool(f, "rope.settled", &p->settled);
    wb_fields_f64(f, "rope.max_speed", &p->max_speed, 1);
    wb_fields_u64(f, "rope.generation", &p->generation, 1);
    wb_fields_f32(f, "rope.x", s->x, n);
    wb_fields_f32(f, "rope.y", s->y, n);
    wb_fields_f32(f, "rope.px", s->px, n);
    wb_fields_f32(f, "rope.py", s->py, n);
    wb_fields_f32(f, "rope.w", s->w, n);
    wb_fields_f32(f, "rope.rest", s->rest, nl);
    wb_fields_u8(f, "rope.active", s->active, nl);
    /* the fallback directions and the chain solve's multipliers carry
     * from step to step */
    float *links[] = {s->dirx, s->diry, s->nx, s->ny, s->diag, s->off, s->rhs, s->lam};
    for (size_t k = 0; k < sizeof links / sizeof *links; k++)
        wb_fields_f32(f, "rope.link_scratch", links[k], nl);
    wb_fields_f64(f, "rope.acc", &s->acc, 1);
    wb_fields_f64(f, "rope.time", &s->time, 1);
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
    /* the anchor paths' shift is no field: it is the sum of the teleports
     * fired so far, added in their order as advance did */
    p->shift[0] = p->shift[1] = 0.0f;
    for (size_t k = 0; k < p->tl.next; k++)
        if (p->tl.events[k].type == WB_EVENT_TELEPORT) {
            p->shift[0] += (float)p->tl.events[k].u.teleport.by.x;
            p->shift[1] += (float)p->tl.events[k].u.teleport.by.y;
        }
}

/* Every node of every rope, in metres (y down, as the scene's). */
static WbStatus rope_motion(void *self, WbMotion *m, WbError *err)
{
    RopeRun *p = self;
    const WbRopeState *s = &p->st;
    if (!p->export_rows && !(p->export_rows = malloc((size_t)s->n * sizeof *p->export_rows)))
        return wb_error_set(err, WB_E_IO, "out of memory");
    for (int r = 0; r < s->n_ropes; r++)
        for (int k = s->rope_first[r]; k < s->rope_first[r + 1]; k++)
            p->export_rows[k] = (WbTrackRow){r, k - s->rope_first[r], {s->x[k], s->y[k], 0.0}};
    *m = (WbMotion){.n_rows = (size_t)s->n, .rows = p->export_rows,
                    .columns = "rope,node,x,y,z", .row_b = 1};
    return WB_OK;
}

static bool rope_idle(void *self)
{
    RopeRun *p = self;
    return p->settled && wb_timeline_done(&p->tl) &&
           (double)p->step * p->dt >= p->paths_end && p->step >= p->ramps_end;
}

static bool rope_changed(void *self)
{
    RopeRun *p = self;
    return !p->drawn_once || p->generation != p->drawn_generation;
}

static WbStatus rope_draw(void *self, WbPool *pool, WbImage *out, WbError *err)
{
    RopeRun *p = self;
    const WbRopeSceneDef *r = &p->scene->rope;
    WbRopeView *v = &p->view;
    float ppm = wb_rope_view_px_per_m(v);
    /* outlines ~1/40 of the view's shorter side in pixels, at least 1 px */
    float outline = fmaxf(1.0f, (float)fmin(r->view.width, r->view.height) * ppm / 160.0f);
    wb_rope_view_begin(v);
    wb_rope_view_draw(v, &p->st, p->obstacles, (int)r->n_obstacles, p->lines, outline);
    WbStatus st = wb_rope_view_end(v, pool, out, err);
    p->drawn_generation = p->generation;
    p->drawn_once = true;
    return st;
}

static void rope_stats(void *self, WbFrameStats *fs)
{
    RopeRun *p = self;
    const WbRopeState *s = &p->st;
    double worst = 0.0;
    for (int i = 0; i < s->n_ropes; i++) {
        double mean, mx;
        wb_rope_elongation(s, i, &mean, &mx);
        if (mx > worst)
            worst = mx;
    }
    size_t n = (size_t)s->n;
    uint64_t h = WB_FNV1A_SEED;
    h = wb_fnv1a(h, s->x, n * sizeof *s->x);
    h = wb_fnv1a(h, s->y, n * sizeof *s->y);
    h = wb_fnv1a(h, s->px, n * sizeof *s->px);
    h = wb_fnv1a(h, s->py, n * sizeof *s->py);
    h = wb_fnv1a(h, s->active, (size_t)s->n_links);
    fs->moving = !p->settled;
    fs->max_displacement = worst; /* rope: the largest link elongation (fraction) */
    fs->max_speed = p->max_speed;
    fs->hash = h;
}

static void rope_destroy(void *self)
{
    RopeRun *p = self;
    if (!p)
        return;
    if (p->view_ready)
        wb_rope_view_free(&p->view);
    if (p->st_ready)
        wb_rope_free(&p->st);
    free(p->size);
    free(p->lines);
    free(p->obstacles);
    free(p->export_rows);
    free(p);
}

/* Each rope's drawn width and weight, in metres first so that the motion
 * is the same at every output size: `width` in metres (or auto, 1/75 of
 * the view's shorter side) collides with half of itself whatever the
 * framing; only an `Npx` width, a size on the screen, becomes metres
 * through the framing's pixels per metre.  The weight's disc has an area
 * in proportion to the mass (radius 0.9·width·√mass), at least the rope's
 * width and at most 8 % of the output's shorter side. */
static void size_ropes(RopeRun *p, int out_w, int out_h)
{
    const WbRopeSceneDef *rd = &p->scene->rope;
    float ppm = wb_rope_view_px_per_m(&p->view);
    for (size_t i = 0; i < rd->n_ropes; i++) {
        const WbRopeLineDef *l = &rd->ropes[i];
        WbLen wl = l->width;
        double wm = wl.automatic ? fmin(rd->view.width, rd->view.height) / 75.0
                    : wl.px      ? wl.value / ppm
                                 : wl.value;
        RopeSize *z = &p->size[i];
        z->width_px = (float)fmax(wl.px ? wl.value : wm * ppm, 0.5);
        z->radius = (float)(0.5 * wm);
        z->weight_r = 0.0f;
        if (l->end_mass > 1.0 && !pins_end(l->pin)) {
            double cap = 0.08 * fmin(out_w, out_h) / ppm;
            z->weight_r = (float)fmax(fmin(wm * 0.9 * sqrt(l->end_mass), cap), wm);
        }
    }
}

/* What the view draws: each rope's width, weight, colour and anchors, and
 * the obstacles. */
static void look(RopeRun *p, const WbRopeSceneDef *rd)
{
    for (size_t i = 0; i < rd->n_ropes; i++)
        p->lines[i] = (WbRopeViewLine){
            .width_px = p->size[i].width_px,
            .weight_r = p->size[i].weight_r,
            .colour = rd->ropes[i].colour,
            .anchor_start = pins_start(rd->ropes[i].pin),
            .anchor_end = pins_end(rd->ropes[i].pin),
        };
    for (size_t o = 0; o < rd->n_obstacles; o++)
        p->obstacles[o] = (WbRopeViewObstacle){
            .x = rd->obstacles[o].x,
            .y = rd->obstacles[o].y,
            .n = rd->obstacles[o].n,
            .colour = rd->obstacles[o].colour,
        };
}

WbStatus wb_runner_rope(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt,
                        WbError *err)
{
    const WbRopeSceneDef *rd = &scene->rope;
    RopeRun *p = calloc(1, sizeof *p);
    if (!p)
        return wb_error_set(err, WB_E_IO, "out of memory");
    p->size = calloc(rd->n_ropes ? rd->n_ropes : 1, sizeof *p->size);
    p->lines = calloc(rd->n_ropes ? rd->n_ropes : 1, sizeof *p->lines);
    p->obstacles = calloc(rd->n_obstacles ? rd->n_obstacles : 1, sizeof *p->obstacles);
    if (!p->size || !p->lines || !p->obstacles) {
        free(p->size);
        free(p->lines);
        free(p->obstacles);
        free(p);
        return wb_error_set(err, WB_E_IO, "out of memory");
    }
    p->scene = scene;
    p->stop = opt->stop;
    p->dt = rd->step;
    p->tl = wb_timeline_dt(scene->events, scene->n_events, p->dt);
    p->live = *rd;
    p->ramps_end = wb_timeline_ramps_end(&p->tl);
    p->hold_steps = wb_runner_steps(ceil(SETTLE_HOLD / rd->step));
    /* the view first: the ropes collide with the sizes it draws */
    int w, h; /* output size: given, or from the view's aspect (640 wide by default) */
    wb_runner_output_size(&scene->output, rd->view.height / rd->view.width, &w, &h);
    WbRopeViewSetup vs = {
        .width = w,
        .height = h,
        .samples = opt->aa,
        .fit = scene->output.fit,
        .world_w = rd->view.width,
        .world_h = rd->view.height,
        .background = scene->output.background,
        .transparent = scene->output.transparent,
    };
    WbStatus st = wb_rope_view_init(&p->view, &vs, err);
    if (st) {
        rope_destroy(p);
        return st;
    }
    p->view_ready = true;
    size_ropes(p, w, h);
    look(p, rd);
    build_def(p, rd);
    WbError e;
    wb_error_clear(&e);
    st = wb_rope_init(&p->st, &p->def, &e);
    if (st) {
        rope_destroy(p);
        return wb_error_at(err, st, scene->path, 0, 0, "%s", e.msg);
    }
    p->st_ready = true;
    for (size_t i = 0; i < rd->n_ropes; i++)
        if (rd->ropes[i].length > 0)
            lay_out_slack(&p->st, (int)i, rd->ropes[i].length, pins_start(rd->ropes[i].pin),
                          pins_end(rd->ropes[i].pin));
    /* moving anchors start where their path is at 0 s (the rope's end) */
    move_anchors(p, 0.0);
    *r = (WbRunner){
        .self = p,
        .width = w,
        .height = h,
        .rate = 1.0 / rd->step,
        .alpha = scene->output.transparent,
        .advance = rope_advance,
        .idle = rope_idle,
        .changed = rope_changed,
        .draw = rope_draw,
        .stats = rope_stats,
        .fields = rope_fields,
        .motion = rope_motion,
        .destroy = rope_destroy,
    };
    return WB_OK;
}

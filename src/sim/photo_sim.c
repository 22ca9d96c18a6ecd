/* photo_sim.c — the photo springs over time, driven by commands.
 *
 * Per step: move the cursor and compute its increment Δ, let the grip go if
 * pulled too far, run the pure step (photo.c), and on the fixed settle
 * schedule test "is anything still moving?" and snap to rest when not,
 * then run the fold limit (photo_fold.h).  Weight arrays are built when a
 * command changes them (grab, pin, unpin), never per step.  Consecutive
 * steps with nothing of that between them (no let-go, no settle test or
 * fold limit) run as one fused pass over the mesh (wb_photo_step_n): the
 * same floats, the memory traffic of one step.
 * Commands come between advances, so a run never spans one.
 */
#include "sim/photo_sim.h"

#include "core/hash.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/frames.h"
#include "sim/photo_fold.h"
#include "sim/spring.h"

/* Gaussian weights below this are exactly 0: they move a vertex by less than
 * a millionth of the pull, and exact zeros keep far vertices bit-exact at
 * rest and keep denormals out of the weight arrays. */
#define WEIGHT_FLOOR 1e-6

typedef struct Pin {
    double x, y, r;
    char name[WB_PHOTO_PIN_NAME];
} Pin;

struct WbPhotoSim {
    WbPhotoState s;
    WbPhotoStep coef;
    WbSpringIntegrator integrator;
    double k, k0, rate, dt;
    int img_w, img_h;
    float eps;                /* settle threshold */
    double grip;              /* grip limit, units; ≤ 0 never */
    double auto_radius;       /* grab radius rule without an explicit radius */
    double def_radius;        /* photo.radius resolved, or auto_radius */
    int check_every;
    bool fold_limit;          /* run the fold limit (settle schedule, frame steps) */
    bool fold_dirty;          /* the mesh moved since the limit last ran */
    double frame_fps;         /* > 0: the limit also runs on each frame's step */
    double frame_preroll;     /* (core/frames.h) */
    int64_t limited;          /* what the fold limit held so far (not saved) */
    WbPhotoFoldScratch fold;
    int64_t n;                /* steps taken */
    int64_t checked;          /* steps at the end of the last checking advance */
    uint64_t generation;
    double settled_at;

    bool grabbing;
    WbPhotoCursorFn cursor;   /* of the grab that holds */
    void *cursor_ctx;
    double gx, gy;            /* grab point */
    double cx, cy;            /* cursor at the end of the last step */
    bool held;                /* a mask with no vertex inside: nothing moves */
    float *grab_base;         /* w_i, 0 when held */
    float *grab_w;            /* e_i = w_i (1 - p_i) */
    float *pin_w;             /* p_i */
    Pin pins[WB_PHOTO_MAX_PINS];
    int n_pins;
};

/* ---------------------------------------------------------------- units */

static double min_edge(const WbPhotoSim *sim)
{
    return sim->img_w < sim->img_h ? sim->img_w : sim->img_h;
}

/* ---------------------------------------------------------------- mask */

/* Bilinear sample of the pixel weights at a point in units (pixel centres at
 * +0.5, clamped at the edges). */
static float mask_sample(const float *m, int w, int h, double scale, double ux, double uy)
{
    double px = ux * scale - 0.5, py = uy * scale - 0.5;
    px = px < 0 ? 0 : px > w - 1 ? w - 1 : px;
    py = py < 0 ? 0 : py > h - 1 ? h - 1 : py;
    int x0 = (int)px, y0 = (int)py;
    int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    double fx = px - x0, fy = py - y0;
    double a = m[(size_t)y0 * w + x0] * (1 - fx) + m[(size_t)y0 * w + x1] * fx;
    double b = m[(size_t)y1 * w + x0] * (1 - fx) + m[(size_t)y1 * w + x1] * fx;
    double v = a * (1 - fy) + b * fy;
    return (float)(v < WEIGHT_FLOOR ? 0.0 : v > 1.0 ? 1.0 : v);
}

/* 1/6 of the shorter side of the bounding box of m > 0.5, in units; 0 when
 * no pixel is inside. */
static double mask_radius(const float *m, int w, int h)
{
    int x0 = w, y0 = h, x1 = -1, y1 = -1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (m[(size_t)y * w + x] > 0.5f) {
                x0 = x < x0 ? x : x0;
                x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0;
                y1 = y > y1 ? y : y1;
            }
    if (x1 < 0)
        return 0;
    double bw = x1 - x0 + 1, bh = y1 - y0 + 1;
    double e = w < h ? w : h;
    return (bw < bh ? bw : bh) / e / 6.0;
}

/* ---------------------------------------------------------------- weights */

static double gauss(double dx, double dy, double r)
{
    double g = exp(-(dx * dx + dy * dy) / (2.0 * r * r));
    return g < WEIGHT_FLOOR ? 0.0 : g;
}

/* p_i = 1 - Π(1 - g_k) over the active pins; NULL array when none. */
static void rebuild_pins(WbPhotoSim *sim)
{
    WbPhotoState *s = &sim->s;
    if (sim->n_pins == 0) {
        s->pin = NULL;
        return;
    }
    for (size_t i = 0; i < s->n; i++) {
        double keep = 1.0;
        for (int k = 0; k < sim->n_pins; k++) {
            const Pin *p = &sim->pins[k];
            keep *= 1.0 - gauss(s->rx[i] - p->x, s->ry[i] - p->y, p->r);
        }
        double pw = 1.0 - keep;
        sim->pin_w[i] = (float)(pw < WEIGHT_FLOOR ? 0.0 : pw);
    }
    s->pin = sim->pin_w;
}

/* e_i = w_i (1 - p_i); NULL array when no grab. */
static void rebuild_grab(WbPhotoSim *sim)
{
    WbPhotoState *s = &sim->s;
    if (!sim->grabbing) {
        s->grab = NULL;
        return;
    }
    for (size_t i = 0; i < s->n; i++) {
        float p = s->pin ? s->pin[i] : 0.0f;
        sim->grab_w[i] = sim->grab_base[i] * (1.0f - p);
    }
    s->grab = sim->grab_w;
}

/* ---------------------------------------------------------------- commands */

static double auto_pin_radius(const WbPhotoSim *sim)
{
    return 0.5 * sim->def_radius;
}

static void start_grab(WbPhotoSim *sim, const WbPhotoGrab *g)
{
    WbPhotoState *s = &sim->s;
    double r = g->radius_auto ? sim->def_radius : g->radius;
    sim->gx = g->x;
    sim->gy = g->y;
    for (size_t i = 0; i < s->n; i++) {
        double w = gauss(s->rx[i] - sim->gx, s->ry[i] - sim->gy, r);
        if (sim->held)
            w = 0.0;
        sim->grab_base[i] = (float)w;
    }
    sim->cursor = g->cursor;
    sim->cursor_ctx = g->ctx;
    sim->grabbing = true;
    sim->cx = sim->gx;
    sim->cy = sim->gy;
    rebuild_grab(sim);
}

static void stop_grab(WbPhotoSim *sim)
{
    sim->grabbing = false;
    sim->cursor = NULL;
    sim->cursor_ctx = NULL;
    sim->s.grab = NULL;
    /* What the grab held is free now: let the springs see it. */
    sim->s.settled = false;
    sim->settled_at = -1;
}

void wb_photo_sim_grab(WbPhotoSim *sim, const WbPhotoGrab *grab)
{
    assert(sim->grab_base && grab->cursor);
    if (sim->grabbing)
        stop_grab(sim);
    start_grab(sim, grab);
}

void wb_photo_sim_release(WbPhotoSim *sim)
{
    if (sim->grabbing)
        stop_grab(sim);
}

void wb_photo_sim_pin(WbPhotoSim *sim, const WbPhotoPin *pin)
{
    assert(sim->pin_w && sim->n_pins < WB_PHOTO_MAX_PINS);
    Pin *p = &sim->pins[sim->n_pins++];
    p->x = pin->x;
    p->y = pin->y;
    p->r = pin->radius_auto ? auto_pin_radius(sim) : pin->radius;
    snprintf(p->name, sizeof p->name, "%s", pin->name);
    rebuild_pins(sim);
    rebuild_grab(sim);
}

void wb_photo_sim_unpin(WbPhotoSim *sim, const char *name)
{
    int kept = 0;
    for (int k = 0; k < sim->n_pins; k++)
        if (name[0] && strcmp(sim->pins[k].name, name) != 0)
            sim->pins[kept++] = sim->pins[k];
    sim->n_pins = kept;
    rebuild_pins(sim);
    rebuild_grab(sim);
    sim->s.settled = false;
    sim->settled_at = -1;
}

/* ---------------------------------------------------------------- create */

/* The smallest rate (steps/s) at which the Euler step is stable. */
static double stable_rate(double k, double zeta)
{
    double lo = 1e-3, hi = 1e9;
    for (int i = 0; i < 200 && hi / lo > 1.0001; i++) {
        double mid = sqrt(lo * hi), p[4];
        wb_spring_euler(k, zeta, 1.0 / mid, p);
        if (wb_spring_growth(p) <= 1.0)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

WbStatus wb_photo_sim_create(WbPhotoSim **out, const WbPhotoSimDef *def, int img_w, int img_h,
                             const float *mask_px, WbError *err)
{
    *out = NULL;
    WbPhotoSim *sim = calloc(1, sizeof *sim);
    if (!sim)
        return wb_error_set(err, WB_E_IO, "out of memory for the photo simulation");
    WbStatus st = wb_photo_state_init(&sim->s, def->grid, img_w, img_h, err);
    if (st) {
        free(sim);
        return st;
    }
    sim->img_w = img_w;
    sim->img_h = img_h;
    sim->rate = def->rate;
    sim->dt = 1.0 / def->rate;
    sim->k0 = wb_spring_k(def->frequency, 0.0);
    sim->k = wb_spring_k(def->frequency, def->elasticity);
    sim->eps = (float)def->settle_epsilon;
    sim->grip = def->grip * sqrt(sim->k / sim->k0);
    sim->check_every = (int)lround(def->rate / 60.0);
    if (sim->check_every < 1)
        sim->check_every = 1;
    sim->settled_at = 0.0;
    sim->integrator = def->integrator;
    sim->fold_limit = def->fold_limit;
    if (!wb_photo_step_coef(&sim->coef, sim->k, def->bounce, sim->dt, def->integrator)) {
        double need = stable_rate(sim->k, def->bounce), f = sqrt(sim->k) / (2 * M_PI);
        wb_photo_sim_destroy(sim);
        return wb_error_set(err, WB_E_INPUT,
                            "photo.rate %g is too low for a %.3g Hz spring with Euler "
                            "integration (it would blow up): use photo.rate ≥ %.0f or "
                            "integrator: exact",
                            def->rate, f, ceil(need));
    }

    bool oom = false;
    if (mask_px) {
        float *m = wb_photo_array_alloc(sim->s.n);
        oom |= !m;
        if (m) {
            double scale = min_edge(sim);
            sim->held = true;
            for (size_t i = 0; i < sim->s.n; i++) {
                m[i] = mask_sample(mask_px, img_w, img_h, scale, sim->s.rx[i], sim->s.ry[i]);
                sim->held &= m[i] == 0.0f;
            }
            wb_photo_apply_mask(&sim->s, m);
        }
    }
    double r = mask_px ? mask_radius(mask_px, img_w, img_h) : 0.0;
    sim->auto_radius = r > 0 ? r : 1.0 / 6.0;
    sim->def_radius = def->radius_auto ? sim->auto_radius : def->radius;

    if (def->grabs) {
        sim->grab_base = wb_photo_array_alloc(sim->s.n);
        sim->grab_w = wb_photo_array_alloc(sim->s.n);
        oom |= !sim->grab_base || !sim->grab_w;
    }
    if (sim->fold_limit) {
        bool ok = wb_photo_fold_scratch_init(&sim->fold, def->grid);
        if (ok)
            wb_photo_fold_save(&sim->s, &sim->fold);
        oom |= !ok;
    }
    if (def->pins) {
        sim->pin_w = wb_photo_array_alloc(sim->s.n);
        oom |= !sim->pin_w;
    }
    if (oom) {
        wb_photo_sim_destroy(sim);
        return wb_error_set(err, WB_E_IO, "out of memory for a %d-cell photo grid", def->grid);
    }
    *out = sim;
    return WB_OK;
}

void wb_photo_sim_destroy(WbPhotoSim *sim)
{
    if (!sim)
        return;
    /* The state frees what it points at; weight arrays are ours. */
    sim->s.grab = NULL;
    sim->s.pin = NULL;
    wb_photo_state_free(&sim->s);
    wb_photo_array_free(sim->grab_base);
    wb_photo_array_free(sim->grab_w);
    wb_photo_array_free(sim->pin_w);
    wb_photo_fold_scratch_free(&sim->fold);
    free(sim);
}

bool wb_photo_sim_set_spring(WbPhotoSim *sim, double frequency, double elasticity, double bounce,
                             double grip)
{
    double k = wb_spring_k(frequency, elasticity), k0 = wb_spring_k(frequency, 0.0);
    WbPhotoStep coef;
    if (!wb_photo_step_coef(&coef, k, bounce, sim->dt, sim->integrator))
        return false;
    sim->coef = coef;
    sim->k = k;
    sim->k0 = k0;
    sim->grip = grip * sqrt(k / k0);
    return true;
}

/* ---------------------------------------------------------------- run */

/* Steps fused into one pass over the mesh at most (photo.c runs them block
 * by block).  A run ends earlier where the grip lets go, and the settle test
 * ends it anyway: every round(rate/60) steps. */
#define RUN_MAX 16

/* The cursor at the end of step n1 and whether the grip still holds there
 * (|cursor - grab point| ≤ grip). */
static bool grip_holds(const WbPhotoSim *sim, int64_t n1, double *cx, double *cy)
{
    sim->cursor(sim->cursor_ctx, n1, cx, cy);
    return !(sim->grip > 0 && hypot(*cx - sim->gx, *cy - sim->gy) > sim->grip);
}

/* Gather the next run of steps n+1 .. n+len (len ≥ 1, n+len ≤ last) and
 * their cursor increments, letting go first when the grip is pulled too far
 * at step n+1.  The run takes the following steps only while nothing would
 * act between them: the grip holding, and no settle test (after steps that
 * are multiples of check_every) — so the fused pass sees the weight arrays
 * and `settled` exactly as single steps would. */
static int gather_run(WbPhotoSim *sim, int64_t last, float *ddx, float *ddy)
{
    int len = 0;
    for (;;) {
        int64_t n1 = sim->n + len + 1;
        if (len > 0 && (sim->eps > 0 || sim->fold_limit) && (n1 - 1) % sim->check_every == 0)
            break;
        ddx[len] = ddy[len] = 0.0f;
        if (sim->grabbing) {
            double cx, cy;
            if (grip_holds(sim, n1, &cx, &cy)) {
                ddx[len] = (float)(cx - sim->cx);
                ddy[len] = (float)(cy - sim->cy);
                sim->cx = cx;
                sim->cy = cy;
            } else if (len == 0) {
                stop_grab(sim); /* pulled past the grip: it lets go before this step */
            } else {
                break;          /* it lets go before step n1: the next run starts there */
            }
        }
        len++;
        if (n1 == last || len == RUN_MAX)
            return len;
    }
    return len;
}

/* The first frame step after step n (wb_photo_sim_fold_frames), or
 * WB_MAX_STEPS without frames. */
static int64_t frame_after(const WbPhotoSim *sim, int64_t n)
{
    if (!(sim->frame_fps > 0))
        return WB_MAX_STEPS;
    double t = (double)n / sim->rate - sim->frame_preroll;
    int64_t f = t > 0 ? (int64_t)floor(t * sim->frame_fps) - 1 : 0;
    if (f < 0)
        f = 0;
    int64_t s;
    while ((s = wb_frame_step(f, sim->frame_fps, sim->rate, sim->frame_preroll)) <= n)
        f++;
    return s;
}

/* Run steps up to `last`; *bad = wb_photo_find_nonfinite of the state then. */
static void run_steps(WbPhotoSim *sim, int64_t last, int64_t *bad)
{
    float ddx[RUN_MAX], ddy[RUN_MAX];
    int64_t frame = sim->fold_limit ? frame_after(sim, sim->n) : WB_MAX_STEPS;
    while (sim->n < last) {
        /* A run ends on a frame's step, for the limit to run there. */
        int len = gather_run(sim, frame < last ? frame : last, ddx, ddy);
        bool final = sim->n + len == last;
        /* A step that runs leaves the state unsettled: each is a change. */
        int ran = wb_photo_step_n(&sim->s, &sim->coef, len, ddx, ddy, final ? bad : NULL);
        sim->generation += (uint64_t)ran;
        sim->fold_dirty |= ran > 0;
        sim->n += len;
        int64_t n1 = sim->n;
        bool on_schedule = n1 % sim->check_every == 0;
        if (!sim->s.settled && sim->eps > 0 && on_schedule &&
            !wb_photo_moving(&sim->s, &sim->coef, sim->eps)) {
            wb_photo_settle(&sim->s, sim->eps);
            sim->settled_at = (double)n1 / sim->rate;
            sim->generation++;
            sim->fold_dirty = true;
            if (final)
                *bad = wb_photo_find_nonfinite(&sim->s);
        }
        /* The fold limit runs on the settle schedule and on every frame's
         * step, absolute step numbers, so where advance() calls stop never
         * changes the motion, and no frame shows a fold; it judges what
         * moved since its last run. */
        bool on_frame = n1 == frame;
        if (on_frame)
            frame = frame_after(sim, n1);
        if (sim->fold_limit && sim->fold_dirty && (on_schedule || on_frame)) {
            sim->limited += wb_photo_fold_limit(&sim->s, &sim->fold);
            sim->fold_dirty = false;
        }
    }
}

void wb_photo_sim_fold_frames(WbPhotoSim *sim, double fps, double preroll)
{
    sim->frame_fps = fps;
    sim->frame_preroll = preroll;
}

void wb_photo_sim_run(WbPhotoSim *sim, int64_t step)
{
    int64_t bad = -1;
    run_steps(sim, step, &bad);
}

WbStatus wb_photo_sim_advance(WbPhotoSim *sim, int64_t step, WbError *err)
{
    int64_t first = sim->checked;
    if (step <= sim->n)
        return WB_OK;
    int64_t bad = -1;
    run_steps(sim, step, &bad);
    sim->checked = sim->n;
    if (bad >= 0) {
        int cols = sim->s.grid + 1;
        return wb_error_set(err, WB_E_DIVERGED,
                            "photo simulation diverged: vertex (%d, %d) is NaN/Inf by t = %.6f s "
                            "(step %lld; finite at t = %.6f s)",
                            (int)(bad % cols), (int)(bad / cols), (double)sim->n / sim->rate,
                            (long long)sim->n, (double)first / sim->rate);
    }
    return WB_OK;
}

int64_t wb_photo_sim_step_at(const WbPhotoSim *sim, double t)
{
    return (int64_t)floor(t * sim->rate + 1e-9);
}

int64_t wb_photo_sim_steps(const WbPhotoSim *sim)
{
    return sim->n;
}

double wb_photo_sim_time(const WbPhotoSim *sim)
{
    return (double)sim->n / sim->rate;
}

bool wb_photo_sim_idle(const WbPhotoSim *sim)
{
    return sim->s.settled && !sim->grabbing;
}

uint64_t wb_photo_sim_generation(const WbPhotoSim *sim)
{
    return sim->generation;
}

void wb_photo_sim_stats(const WbPhotoSim *sim, WbPhotoStats *st)
{
    const WbPhotoState *s = &sim->s;
    double d2 = 0, v2 = 0;
    if (!s->settled || s->pin || s->grab)
        for (size_t i = 0; i < s->n; i++) {
            double dx = (double)s->x[i] - s->rx[i], dy = (double)s->y[i] - s->ry[i];
            double a = dx * dx + dy * dy;
            double b = (double)s->vx[i] * s->vx[i] + (double)s->vy[i] * s->vy[i];
            d2 = a > d2 ? a : d2;
            v2 = b > v2 ? b : v2;
        }
    *st = (WbPhotoStats){
        .moving = !s->settled,
        .max_displacement = sqrt(d2),
        .max_speed = sqrt(v2),
        .time = wb_photo_sim_time(sim),
        .settled_at = s->settled ? sim->settled_at : -1.0,
        .grabbing = sim->grabbing,
        .limited = sim->limited,
    };
}

uint64_t wb_photo_sim_hash(const WbPhotoSim *sim)
{
    const float *arrays[] = {sim->s.x, sim->s.y, sim->s.vx, sim->s.vy};
    uint64_t h = WB_FNV1A_SEED;
    for (size_t a = 0; a < 4; a++)
        h = wb_fnv1a(h, arrays[a], sim->s.n * sizeof(float));
    return h;
}

const WbPhotoState *wb_photo_sim_state(const WbPhotoSim *sim)
{
    return &sim->s;
}

double wb_photo_sim_auto_radius(const WbPhotoSim *sim)
{
    return sim->auto_radius;
}

bool wb_photo_sim_grabbing(const WbPhotoSim *sim)
{
    return sim->grabbing;
}

void wb_photo_sim_cursor(const WbPhotoSim *sim, double *x, double *y)
{
    *x = sim->cx;
    *y = sim->cy;
}

const WbPhotoStep *wb_photo_sim_coef(const WbPhotoSim *sim)
{
    return &sim->coef;
}

void wb_photo_sim_fields(WbPhotoSim *sim, WbFields *f, WbPhotoCursorFn cursor, void *ctx)
{
    WbPhotoState *s = &sim->s;
    wb_fields_f32(f, "photo.x", s->x, s->n);
    wb_fields_f32(f, "photo.y", s->y, s->n);
    wb_fields_f32(f, "photo.vx", s->vx, s->n);
    wb_fields_f32(f, "photo.vy", s->vy, s->n);
    wb_fields_bool(f, "photo.settled", &s->settled);
    wb_fields_i64(f, "photo.n", &sim->n, 1);
    wb_fields_i64(f, "photo.checked", &sim->checked, 1);
    wb_fields_u64(f, "photo.generation", &sim->generation, 1);
    wb_fields_f64(f, "photo.settled_at", &sim->settled_at, 1);
    wb_fields_bool(f, "photo.grabbing", &sim->grabbing);
    double g[4] = {sim->gx, sim->gy, sim->cx, sim->cy};
    wb_fields_f64(f, "photo.grab", g, 4);
    sim->gx = g[0], sim->gy = g[1], sim->cx = g[2], sim->cy = g[3];
    if (sim->grab_base) {
        wb_fields_f32(f, "photo.grab_base", sim->grab_base, s->n);
        wb_fields_f32(f, "photo.grab_w", sim->grab_w, s->n);
    }
    if (sim->pin_w)
        wb_fields_f32(f, "photo.pin_w", sim->pin_w, s->n);
    wb_fields_int(f, "photo.n_pins", &sim->n_pins);
    for (int k = 0; k < WB_PHOTO_MAX_PINS; k++) {
        Pin *p = &sim->pins[k];
        double xyr[3] = {p->x, p->y, p->r};
        wb_fields_f64(f, "photo.pin", xyr, 3);
        p->x = xyr[0], p->y = xyr[1], p->r = xyr[2];
        wb_fields_u8(f, "photo.pin_name", (uint8_t *)p->name, sizeof p->name);
        p->name[sizeof p->name - 1] = '\0';
    }
    if (!f->loading)
        return;
    if (sim->fold_limit) {
        /* the loaded mesh is the one to go back to (as it was, when the
         * state was saved on the fold limit's schedule) */
        wb_photo_fold_save(s, &sim->fold);
        sim->fold_dirty = false;
    }
    /* a negative step count would make the next advance run without end */
    if (sim->n < 0)
        sim->n = 0;
    if (sim->checked < 0 || sim->checked > sim->n)
        sim->checked = sim->n;
    /* what the arrays point at follows from the commands in force */
    if (sim->n_pins < 0 || sim->n_pins > WB_PHOTO_MAX_PINS || (sim->n_pins && !sim->pin_w))
        sim->n_pins = 0;
    s->pin = sim->n_pins ? sim->pin_w : NULL;
    sim->grabbing = sim->grabbing && sim->grab_base && cursor;
    s->grab = sim->grabbing ? sim->grab_w : NULL;
    sim->cursor = sim->grabbing ? cursor : NULL;
    sim->cursor_ctx = sim->grabbing ? ctx : NULL;
}

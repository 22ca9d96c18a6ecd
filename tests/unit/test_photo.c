/* test_photo.c — the photo mesh: physics against closed forms, the grab,
 * pins, masks, settling, divergence and the presets. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mask.h"
#include "sim/photo.h"
#include "sim/photo_fold.h"
#include "sim/photo_sim.h"
#include "sim/presets.h"
#include "sim/spring.h"

#include "photo_drive.h"

/* ---------------------------------------------------------------- helpers */

static WbPhotoDef def_default(void)
{
    WbPhotoDef d;
    memset(&d, 0, sizeof d);
    d.grid = 32;
    d.frequency = 2.0;
    d.elasticity = 0.0;
    d.bounce = 0.3;
    d.integrator = WB_INTEGRATOR_EULER;
    d.rate = 240.0;
    d.radius.automatic = true;
    d.grip = 0.0;
    d.settle_epsilon = 1e-4;
    return d;
}

static WbPoint pt(double x, double y)
{
    return (WbPoint){.x = x, .y = y};
}

static WbEvent ev_grab(double t, double x, double y, WbKey *path, size_t n)
{
    WbEvent e = {.type = WB_EVENT_GRAB, .time = t};
    e.u.grab.at = pt(x, y);
    e.u.grab.radius.automatic = true;
    e.u.grab.path = path;
    e.u.grab.n_path = n;
    return e;
}

static WbEvent ev_release(double t)
{
    return (WbEvent){.type = WB_EVENT_RELEASE, .time = t};
}

static WbEvent ev_pin(double t, double x, double y, double r, const char *name)
{
    WbEvent e = {.type = WB_EVENT_PIN, .time = t};
    e.u.pin.at = pt(x, y);
    e.u.pin.radius = (WbLen){.value = r, .automatic = r <= 0};
    snprintf(e.u.pin.name, sizeof e.u.pin.name, "%s", name);
    return e;
}

static WbPhotoSim *make_sim(const WbPhotoDef *d, const WbEvent *ev, size_t n, const float *mask,
                            int w, int h)
{
    WbPhotoSim *sim = NULL;
    WbError err;
    WbStatus st = drive_create(&sim, d, ev, n, w, h, mask, &err);
    cr_assert_eq(st, WB_OK, "create: %s", err.msg);
    return sim;
}

static void advance(WbPhotoSim *sim, int64_t step)
{
    WbError err;
    WbStatus st = drive_advance(sim, step, &err);
    cr_assert_eq(st, WB_OK, "advance: %s", err.msg);
}

static size_t vertex(const WbPhotoState *s, int i, int j)
{
    return (size_t)j * (size_t)(s->grid + 1) + (size_t)i;
}

/* One free vertex released from x0 at rest 0, stepped n times; x sampled. */
static void release_run(double k, double zeta, double dt, WbSpringIntegrator integ, double x0, int n,
                        double *xs)
{
    WbPhotoState s;
    WbError err;
    cr_assert_eq(wb_photo_state_init(&s, 1, 1, 1, &err), WB_OK);
    WbPhotoStep c;
    wb_photo_step_coef(&c, k, zeta, dt, integ);
    s.x[0] = (float)x0;
    s.settled = false;
    xs[0] = s.x[0];
    for (int i = 1; i <= n; i++) {
        wb_photo_step(&s, &c, 0, 0);
        xs[i] = s.x[0];
    }
    wb_photo_state_free(&s);
}

/* Zero crossings (interpolated, in steps) and turning points of a sampled
 * displacement. */
static int crossings(const double *xs, int n, double *out, int max)
{
    int c = 0;
    for (int i = 1; i <= n && c < max; i++)
        if ((xs[i - 1] > 0) != (xs[i] > 0))
            out[c++] = (i - 1) + xs[i - 1] / (xs[i - 1] - xs[i]);
    return c;
}

static int peaks(const double *xs, int n, int *idx, int max)
{
    int c = 0;
    for (int i = 1; i < n && c < max; i++)
        if (fabs(xs[i]) >= fabs(xs[i - 1]) && fabs(xs[i]) > fabs(xs[i + 1]))
            idx[c++] = i;
    return c;
}

/* ---------------------------------------------------------------- physics */

Test(photo, exact_release_matches_closed_form)
{
    double k = wb_spring_k(2.0, 0.0), z = 0.3, dt = 1.0 / 240, x0 = 0.1;
    double w = sqrt(k), s = z * w, wd = w * sqrt(1 - z * z);
    enum { N = 480 };
    static double xs[N + 1];
    release_run(k, z, dt, WB_SPRING_EXACT, x0, N, xs);
    for (int i = 0; i <= N; i++) {
        double t = i * dt;
        double ref = x0 * exp(-s * t) * (cos(wd * t) + s / wd * sin(wd * t));
        cr_assert(fabs(xs[i] - ref) < 1e-6, "t=%g: %.9g vs %.9g", t, xs[i], ref);
    }
}

Test(photo, euler_release_period_and_decay_within_stated_tolerance)
{
    /* Semi-implicit Euler at 240 Hz (c·dt ≈ 0.031 here): the damped period
     * within c·dt/2 of 2π/ω_d, the decay rate (from successive peaks) within
     * c·dt of ζω — Euler's phase and damping errors are both O(c·dt). */
    double k = wb_spring_k(2.0, 0.0), z = 0.3, dt = 1.0 / 240;
    double w = sqrt(k), wd = w * sqrt(1 - z * z), c = 2 * z * w;
    enum { N = 720 };
    static double xs[N + 1];
    release_run(k, z, dt, WB_SPRING_EULER, 0.1, N, xs);
    double zc[6];
    int nc = crossings(xs, N, zc, 6);
    cr_assert_geq(nc, 5);
    double period = (zc[4] - zc[0]) / 2 * dt;
    cr_expect(fabs(period / (2 * M_PI / wd) - 1) < c * dt / 2, "period %g vs %g", period, 2 * M_PI / wd);
    int pk[6];
    int np = peaks(xs, N, pk, 6);
    cr_assert_geq(np, 4);
    for (int i = 1; i < np; i++) {
        double rate = log(fabs(xs[pk[i - 1]]) / fabs(xs[pk[i]])) / ((pk[i] - pk[i - 1]) * dt);
        cr_expect(fabs(rate / (z * w) - 1) < c * dt, "decay rate %g vs %g", rate, z * w);
    }
}

static double measured_zeta(double k, double z, WbSpringIntegrator integ)
{
    enum { N = 2000 };
    static double xs[N + 1];
    release_run(k, z, 1.0 / 960, integ, 0.1, N, xs);
    int pk[4];
    cr_assert_geq(peaks(xs, N, pk, 4), 3);
    /* log decrement over one full period (same-sign peaks) */
    double delta = log(xs[0] / xs[pk[1]]);
    return delta / sqrt(4 * M_PI * M_PI + delta * delta);
}

Test(photo, bounce_keeps_zeta_when_stiffness_changes)
{
    double k0 = wb_spring_k(2.0, 0.0);
    const double ss[] = {-1.0, 0.0, 1.0};
    for (size_t i = 0; i < 3; i++) {
        double k = wb_spring_k(2.0, ss[i]);
        double zx = measured_zeta(k, 0.25, WB_SPRING_EXACT);
        double ze = measured_zeta(k, 0.25, WB_SPRING_EULER);
        cr_expect(fabs(zx - 0.25) < 1e-4, "exact, k=%g k0: ζ %g", k / k0, zx);
        cr_expect(fabs(ze - 0.25) < 0.01, "euler 960 Hz, k=%g k0: ζ %g", k / k0, ze);
    }
}

Test(photo, exact_step_is_stable_at_one_second)
{
    const double zs[] = {0.16, 0.5, 1.0, 1.5};
    for (size_t a = 0; a < 4; a++) {
        WbPhotoState s;
        WbError err;
        cr_assert_eq(wb_photo_state_init(&s, 4, 1, 1, &err), WB_OK);
        WbPhotoStep c;
        double k = wb_spring_k(3.0, 1.0);
        cr_assert(wb_photo_step_coef(&c, k, zs[a], 1.0, WB_SPRING_EXACT));
        for (size_t i = 0; i < s.n; i++) {
            s.x[i] += 0.05f * (float)(i % 7);
            s.vy[i] = 2.0f - 0.3f * (float)(i % 5);
        }
        s.settled = false;
        double e0 = INFINITY;
        for (int n = 0; n < 100; n++) {
            double e = 0;
            for (size_t i = 0; i < s.n; i++) {
                double dx = s.x[i] - s.rx[i], dy = s.y[i] - s.ry[i];
                e += k * (dx * dx + dy * dy) + (double)s.vx[i] * s.vx[i] + (double)s.vy[i] * s.vy[i];
            }
            cr_assert(e <= e0, "ζ %g step %d: energy %g grew from %g", zs[a], n, e, e0);
            e0 = e;
            wb_photo_step(&s, &c, 0, 0);
        }
        wb_photo_state_free(&s);
    }
}

/* ---------------------------------------------------------------- grab */

Test(photo, grab_weight_is_gaussian_of_rest_distance)
{
    WbPhotoDef d = def_default();
    WbKey path[] = {{.time = 0.5, .to = pt(0.8, 0.6), .ease = WB_EASE_LINEAR}};
    WbEvent ev[] = {ev_grab(0.1, 0.5, 0.5, path, 1)};
    WbPhotoSim *sim = make_sim(&d, ev, 1, NULL, 200, 100);
    advance(sim, wb_photo_sim_step_at(sim, 0.4)); /* mid-drag: mesh deformed */
    const WbPhotoState *s = wb_photo_sim_state(sim);
    cr_assert_not_null(s->grab);
    double r = 1.0 / 6.0, gx = 0.5 * 2.0, gy = 0.5; /* 200×100: mesh spans [0,2]×[0,1] */
    cr_expect(fabs(wb_photo_sim_auto_radius(sim) - r) < 1e-12);
    double moved = 0;
    for (size_t i = 0; i < s->n; i++) {
        double dx = s->rx[i] - gx, dy = s->ry[i] - gy;
        double w = exp(-(dx * dx + dy * dy) / (2 * r * r));
        w = w < 1e-6 ? 0 : w;
        cr_assert(fabs(s->grab[i] - w) < 1e-6, "vertex %zu: %g vs %g", i, s->grab[i], w);
        moved = fmax(moved, hypot(s->x[i] - s->rx[i], s->y[i] - s->ry[i]));
    }
    cr_expect(moved > 0.1, "the mesh is deformed (%g)", moved);
    drive_destroy(sim);
}

Test(photo, grabbed_centre_follows_cursor_and_keeps_its_velocity)
{
    WbPhotoDef d = def_default();
    d.grid = 64;
    /* grab exactly on vertex (32, 32) of a square image, drag linearly */
    WbKey path[] = {{.time = 1.0, .to = pt(0.7, 0.5), .ease = WB_EASE_LINEAR}};
    WbEvent ev[] = {ev_grab(0.5, 0.5, 0.5, path, 1), ev_release(0.75)};
    WbPhotoSim *sim = make_sim(&d, ev, 2, NULL, 100, 100);
    const WbPhotoState *s = wb_photo_sim_state(sim);
    size_t c = vertex(s, 32, 32);
    advance(sim, wb_photo_sim_step_at(sim, 0.7));
    double cx, cy;
    wb_photo_sim_cursor(sim, &cx, &cy);
    cr_expect(fabs(s->x[c] - cx) < 1e-5, "centre %g vs cursor %g", s->x[c], cx);
    /* Inertia: up to the release the centre moves at the cursor's speed
     * (0.2 units / 0.5 s = 0.4 units/s); the release step is then a plain
     * spring step from that velocity, no jump. */
    int64_t rel = wb_photo_sim_step_at(sim, 0.75);
    advance(sim, rel - 1);
    double u = 0.2 / 0.5;
    cr_expect(fabs(s->vx[c] - u) < 1e-4 * u, "velocity %g vs cursor %g", s->vx[c], u);
    double dd = s->x[c] - s->rx[c], kk = wb_photo_sim_coef(sim)->k;
    double expect = u + (-kk * dd - 2 * 0.3 * sqrt(kk) * u) / 240.0;
    advance(sim, rel);
    cr_assert(!wb_photo_sim_grabbing(sim));
    cr_expect(fabs(s->vx[c] - expect) < 1e-4, "release velocity %g vs %g", s->vx[c], expect);
    float x0 = s->x[c];
    advance(sim, wb_photo_sim_steps(sim) + 5);
    cr_expect(s->x[c] > x0, "keeps moving on: %g -> %g", x0, s->x[c]);
    drive_destroy(sim);
}

Test(photo, no_jump_at_grab_start_or_release)
{
    WbPhotoDef d = def_default();
    WbKey path[] = {{.time = 1.0, .to = pt(0.8, 0.4), .ease = WB_EASE_LINEAR}};
    WbEvent ev[] = {ev_grab(0.2, 0.5, 0.5, path, 1), ev_release(0.6)};
    WbPhotoSim *sim = make_sim(&d, ev, 2, NULL, 100, 100);
    const WbPhotoState *s = wb_photo_sim_state(sim);
    size_t n = s->n;
    float *px = malloc(n * sizeof *px), *py = malloc(n * sizeof *py);
    /* cursor step: 0.3162 units over 0.8 s at 240 Hz.  Starting from rest
     * only the cursor moves the mesh; after that each step's largest move
     * may grow only by what the springs add in one step (ω dt ≈ 5 %), so
     * neither the grab start nor the release can make the mesh jump. */
    double cursor_step = hypot(0.3, 0.1) / 0.8 / 240.0, prev = 0;
    for (int64_t step = 1; step <= wb_photo_sim_step_at(sim, 1.0); step++) {
        memcpy(px, s->x, n * sizeof *px);
        memcpy(py, s->y, n * sizeof *py);
        advance(sim, step);
        double m = 0;
        for (size_t i = 0; i < n; i++)
            m = fmax(m, hypot(s->x[i] - px[i], s->y[i] - py[i]));
        cr_assert(m <= 1.1 * prev + 1.001 * cursor_step, "step %lld moved %g after %g",
                  (long long)step, m, prev);
        if (step <= wb_photo_sim_step_at(sim, 0.2))
            cr_assert_eq(m, 0.0, "nothing moves before the grab");
        prev = step <= wb_photo_sim_step_at(sim, 0.6) ? m : fmax(m, prev);
    }
    free(px);
    free(py);
    drive_destroy(sim);
}

static double grip_release_time(double elasticity)
{
    WbPhotoDef d = def_default();
    d.grip = 0.1;
    d.elasticity = elasticity;
    WbKey path[] = {{.time = 1.5, .to = pt(0.9, 0.5), .ease = WB_EASE_LINEAR}};
    WbEvent ev[] = {ev_grab(0.5, 0.5, 0.5, path, 1)};
    WbPhotoSim *sim = make_sim(&d, ev, 1, NULL, 100, 100);
    double t = -1;
    double limit = 0.1 * sqrt(exp2(elasticity));
    for (int64_t step = 1; step <= wb_photo_sim_step_at(sim, 1.5); step++) {
        double cx, cy;
        wb_photo_sim_cursor(sim, &cx, &cy);
        advance(sim, step);
        if (!wb_photo_sim_grabbing(sim) && step > wb_photo_sim_step_at(sim, 0.5)) {
            /* it held while the pull was within the limit ... */
            cr_expect(cx - 0.5 <= limit + 1e-12, "held up to %g (limit %g)", cx - 0.5, limit);
            /* ... and let go at the first step beyond it */
            double next = 0.5 + 0.4 * ((double)step / 240.0 - 0.5);
            cr_expect(next - 0.5 > limit, "let go at %g (limit %g)", next - 0.5, limit);
            t = (double)step / 240.0;
            break;
        }
    }
    drive_destroy(sim);
    return t;
}

Test(photo, grip_lets_go_beyond_threshold_further_when_stiffer)
{
    double soft = grip_release_time(-1.0), mid = grip_release_time(0.0),
           stiff = grip_release_time(1.0);
    cr_expect(fabs(mid - (0.5 + 0.1 / 0.4)) < 2.0 / 240, "s=0 lets go at %g", mid);
    cr_expect(soft > 0 && soft < mid && mid < stiff, "%g < %g < %g", soft, mid, stiff);
}

/* ---------------------------------------------------------------- pins */

Test(photo, pins_combine_as_independent_probabilities)
{
    WbPhotoDef d = def_default();
    WbEvent ev[] = {ev_pin(0.0, 0.3, 0.3, 0.1, "a"), ev_pin(0.0, 0.4, 0.35, 0.15, "b")};
    WbPhotoSim *sim = make_sim(&d, ev, 2, NULL, 100, 100);
    advance(sim, 1);
    const WbPhotoState *s = wb_photo_sim_state(sim);
    cr_assert_not_null(s->pin);
    for (size_t i = 0; i < s->n; i++) {
        double g1 = exp(-(pow(s->rx[i] - 0.3, 2) + pow(s->ry[i] - 0.3, 2)) / (2 * 0.01));
        double g2 = exp(-(pow(s->rx[i] - 0.4, 2) + pow(s->ry[i] - 0.35, 2)) / (2 * 0.0225));
        g1 = g1 < 1e-6 ? 0 : g1;
        g2 = g2 < 1e-6 ? 0 : g2;
        double p = 1 - (1 - g1) * (1 - g2);
        p = p < 1e-6 ? 0 : p;
        cr_assert(fabs(s->pin[i] - p) < 1e-6, "vertex %zu: %g vs %g", i, s->pin[i], p);
    }
    drive_destroy(sim);
}

Test(photo, pin_set_during_drag_holds_the_deformation)
{
    WbPhotoDef d = def_default();
    /* vertex (16, 16) rests exactly at the grab point (0.5, 0.5); a pin on
     * the same rest point has p = 1 there and holds it where the drag put it */
    WbKey path[] = {{.time = 0.5, .to = pt(0.6, 0.5), .ease = WB_EASE_OUT}};
    WbEvent ev[] = {ev_grab(0.0, 0.5, 0.5, path, 1), ev_pin(0.6, 0.5, 0.5, 0.05, "hold"),
                    ev_release(0.7)};
    WbPhotoSim *sim = make_sim(&d, ev, 3, NULL, 100, 100);
    const WbPhotoState *s = wb_photo_sim_state(sim);
    size_t c = vertex(s, 16, 16), near = vertex(s, 17, 16), far = vertex(s, 16, 2);
    advance(sim, wb_photo_sim_step_at(sim, 0.6));
    float held = s->x[c];
    double near_held = s->x[near] - s->rx[near];
    cr_assert(held - s->rx[c] > 0.09, "dragged %g", held - s->rx[c]);
    advance(sim, wb_photo_sim_step_at(sim, 3.0));
    cr_expect(memcmp(&s->x[c], &held, 4) == 0, "centre held exactly: %g vs %g", s->x[c], held);
    cr_expect(s->x[near] - s->rx[near] > 0.5 * near_held, "neighbour still held: %g of %g",
              s->x[near] - s->rx[near], near_held);
    cr_expect(fabs(s->x[far] - s->rx[far]) < 1e-3, "far vertex returned");
    drive_destroy(sim);
}

/* ---------------------------------------------------------------- mask */

/* The mask decides what is drawn over the still background, not how the
 * mesh moves: across a hard edge (weights 1 | 0.5 on the edge's column | 0)
 * every vertex moves exactly as without a mask, so the seam the object
 * pulls at does not fold, even with the fold limit off. */
Test(photo, a_mask_draws_the_object_and_moves_the_mesh_as_without_one)
{
    enum { W = 64, H = 64 };
    static float mask[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            mask[y * W + x] = x < W / 2 ? 1.0f : 0.0f;
    WbPhotoDef d = def_default();
    d.radius = (WbLen){.value = 0.15};
    WbKey path[] = {{.time = 0.5, .to = pt(0.55, 0.55), .ease = WB_EASE_IN_OUT}};
    WbEvent ev[] = {ev_grab(0.0, 0.4, 0.5, path, 1), ev_release(0.6)};
    WbPhotoSim *sim = make_sim(&d, ev, 2, mask, W, H);
    WbPhotoSim *plain = make_sim(&d, ev, 2, NULL, W, H);
    const WbPhotoState *s = wb_photo_sim_state(sim), *u = wb_photo_sim_state(plain);
    cr_assert_not_null(s->mask);
    cr_assert_eq(s->mask[vertex(s, 16, 16)], 0.5f);
    cr_assert_eq(s->mask[vertex(s, 20, 16)], 0.0f);
    double outside = 0.0;
    for (int64_t step = 1; step <= 480; step += 7) {
        advance(sim, step);
        advance(plain, step);
        cr_assert(memcmp(s->x, u->x, s->n * sizeof *s->x) == 0 &&
                      memcmp(s->y, u->y, s->n * sizeof *s->y) == 0,
                  "step %lld: the masked mesh moved otherwise", (long long)step);
        size_t o = vertex(s, 20, 16);
        outside = fmax(outside, s->x[o] - s->rx[o]);
        cr_assert_eq(wb_photo_fold_count(s), 0, "step %lld: the seam folded", (long long)step);
    }
    cr_expect(outside > 0.02, "the outside followed by %g", outside);
    /* radius rule: 1/6 of the bounding box's shorter side (32 of 64 px) */
    cr_expect(fabs(wb_photo_sim_auto_radius(sim) - (32.0 / 64.0) / 6.0) < 1e-12);
    drive_destroy(sim);
    drive_destroy(plain);
}

/* A mask with nothing inside: no vertex has a weight, so a grab moves
 * nothing, bit for bit. */
Test(photo, empty_mask_never_moves)
{
    enum { W = 64, H = 64 };
    static float mask[W * H];
    WbPhotoDef d = def_default();
    WbKey path[] = {{.time = 0.5, .to = pt(0.8, 0.6), .ease = WB_EASE_IN_OUT}};
    WbEvent ev[] = {ev_grab(0.0, 0.5, 0.5, path, 1), ev_release(0.6)};
    WbPhotoSim *sim = make_sim(&d, ev, 2, mask, W, H);
    const WbPhotoState *s = wb_photo_sim_state(sim);
    for (int64_t step = 1; step <= 240; step += 7) {
        advance(sim, step);
        for (size_t i = 0; i < s->n; i++) {
            cr_assert(memcmp(&s->x[i], &s->rx[i], 4) == 0 && memcmp(&s->y[i], &s->ry[i], 4) == 0,
                      "vertex %zu moved", i);
            cr_assert(s->vx[i] == 0.0f && s->vy[i] == 0.0f && !signbit(s->vx[i]));
        }
    }
    drive_destroy(sim);
}

Test(photo, segment_fills_the_object_and_feathers_its_edge)
{
    WbImage img;
    WbError err;
    cr_assert_eq(wb_image_alloc(&img, 40, 30, &err), WB_OK);
    for (int y = 0; y < 30; y++)
        for (int x = 0; x < 40; x++) {
            uint8_t *p = wb_image_row(&img, y) + 4 * x;
            bool in = x >= 10 && x < 25 && y >= 5 && y < 20;
            p[0] = in ? 200 : 20;
            p[1] = in ? 40 + (x % 3) : 30;
            p[2] = in ? 30 : 180;
            p[3] = 255;
        }
    float *m = NULL;
    cr_assert_eq(wb_mask_segment(&img, 0.4, 0.4, 0.05, &m, &err), WB_OK, "%s", err.msg);
    cr_expect_eq(m[12 * 40 + 17], 1.0f);       /* inside */
    cr_expect_eq(m[2 * 40 + 2], 0.0f);         /* outside */
    cr_expect_eq(m[12 * 40 + 27], 0.0f);       /* two pixels out */
    float edge_in = m[12 * 40 + 24], edge_out = m[12 * 40 + 25];
    cr_expect(edge_in > 0.5f && edge_in < 1.0f, "inner edge %g", edge_in);
    cr_expect(edge_out > 0.0f && edge_out < 0.5f, "outer edge %g", edge_out);
    free(m);
    cr_expect_eq(wb_mask_segment(&img, 1.5, 0.4, 0.05, &m, &err), WB_E_INPUT);
    wb_image_free(&img);
}

/* ---------------------------------------------------------------- settle */

Test(photo, settled_mesh_is_exactly_at_rest_without_denormals)
{
    WbPhotoDef d = def_default();
    WbKey path[] = {{.time = 0.3, .to = pt(0.7, 0.6), .ease = WB_EASE_LINEAR}};
    WbEvent ev[] = {ev_grab(0.0, 0.5, 0.5, path, 1), ev_release(0.3)};
    WbPhotoSim *sim = make_sim(&d, ev, 2, NULL, 120, 90);
    advance(sim, wb_photo_sim_step_at(sim, 0.5));
    cr_assert(!drive_idle(sim));
    uint64_t g0 = wb_photo_sim_generation(sim);
    advance(sim, wb_photo_sim_step_at(sim, 20.0));
    cr_assert(drive_idle(sim));
    WbPhotoStats st;
    wb_photo_sim_stats(sim, &st);
    cr_expect(!st.moving && st.settled_at > 0.5 && st.settled_at < 20.0, "settled at %g",
              st.settled_at);
    cr_expect(wb_photo_sim_generation(sim) != g0);
    const WbPhotoState *s = wb_photo_sim_state(sim);
    for (size_t i = 0; i < s->n; i++) {
        cr_assert(memcmp(&s->x[i], &s->rx[i], 4) == 0 && memcmp(&s->y[i], &s->ry[i], 4) == 0);
        cr_assert(s->vx[i] == 0.0f && s->vy[i] == 0.0f);
        const float v[] = {s->x[i], s->y[i], s->vx[i], s->vy[i]};
        for (int a = 0; a < 4; a++)
            cr_assert(fpclassify(v[a]) != FP_SUBNORMAL, "vertex %zu array %d", i, a);
    }
    /* once settled, stepping changes nothing and the generation stands */
    uint64_t g1 = wb_photo_sim_generation(sim), h1 = wb_photo_sim_hash(sim);
    advance(sim, wb_photo_sim_step_at(sim, 25.0));
    cr_expect_eq(wb_photo_sim_generation(sim), g1);
    cr_expect_eq(wb_photo_sim_hash(sim), h1);
    drive_destroy(sim);
}

Test(photo, results_do_not_depend_on_how_advance_is_called)
{
    WbPhotoDef d = def_default();
    WbKey path[] = {{.time = 0.4, .to = pt(0.6, 0.7), .ease = WB_EASE_IN},
                    {.time = 0.6, .to = pt(0.4, 0.4), .ease = WB_EASE_STEP}};
    WbEvent ev[] = {ev_grab(0.05, 0.5, 0.5, path, 2), ev_release(0.65)};
    WbPhotoSim *a = make_sim(&d, ev, 2, NULL, 80, 60);
    WbPhotoSim *b = make_sim(&d, ev, 2, NULL, 80, 60);
    int64_t end = wb_photo_sim_step_at(a, 1.5);
    advance(a, end);
    for (int f = 1; f <= 36; f++) /* 24 fps frames */
        advance(b, wb_photo_sim_step_at(b, f / 24.0));
    cr_assert_eq(wb_photo_sim_steps(b), end);
    cr_expect_eq(wb_photo_sim_hash(a), wb_photo_sim_hash(b));
    drive_destroy(a);
    drive_destroy(b);
}

Test(photo, nan_is_reported_with_its_vertex)
{
    WbPhotoDef d = def_default();
    WbKey path[] = {{.time = 0.3, .to = pt(0.7, 0.6), .ease = WB_EASE_LINEAR}};
    WbEvent ev[] = {ev_grab(0.0, 0.5, 0.5, path, 1)};
    WbPhotoSim *sim = make_sim(&d, ev, 1, NULL, 100, 100);
    advance(sim, 10);
    WbPhotoState *s = (WbPhotoState *)wb_photo_sim_state(sim);
    s->vy[vertex(s, 7, 5)] = NAN;
    WbError err;
    cr_assert_eq(drive_advance(sim, 20, &err), WB_E_DIVERGED);
    cr_expect(strstr(err.msg, "(7, 5)") != NULL, "%s", err.msg);
    cr_expect(strstr(err.msg, "0.0833") != NULL, "names the time: %s", err.msg);
    drive_destroy(sim);
}

Test(photo, unstable_euler_rate_is_refused)
{
    WbPhotoDef d = def_default();
    d.frequency = 20.0;
    d.rate = 30.0;
    WbPhotoSim *sim = NULL;
    WbError err;
    cr_expect_eq(drive_create(&sim, &d, NULL, 0, 10, 10, NULL, &err), WB_E_INPUT);
    cr_expect(strstr(err.msg, "integrator: exact") != NULL, "%s", err.msg);
    d.integrator = WB_INTEGRATOR_EXACT;
    cr_expect_eq(drive_create(&sim, &d, NULL, 0, 10, 10, NULL, &err), WB_OK);
    drive_destroy(sim);
}

Test(photo, timeline_errors_are_input_errors)
{
    WbPhotoDef d = def_default();
    WbEvent unpin = {.type = WB_EVENT_UNPIN, .time = 1.0, .src_line = 12};
    snprintf(unpin.u.unpin.name, sizeof unpin.u.unpin.name, "ghost");
    WbPhotoSim *sim = NULL;
    WbError err;
    cr_expect_eq(drive_create(&sim, &d, &unpin, 1, 10, 10, NULL, &err), WB_E_INPUT);
    cr_expect(strstr(err.msg, "line 12") && strstr(err.msg, "ghost"), "%s", err.msg);
    WbEvent five[5];
    for (int i = 0; i < 5; i++)
        five[i] = ev_pin(0.1 * i, 0.2, 0.2, 0.1, "");
    cr_expect_eq(drive_create(&sim, &d, five, 5, 10, 10, NULL, &err), WB_E_INPUT);
}

/* ---------------------------------------------------------------- presets */

Test(photo, preset_rows_reproduce_from_the_fit)
{
    size_t n;
    const WbPhotoPreset *p = wb_photo_presets(&n);
    cr_assert_eq(n, 3);
    for (size_t i = 0; i < n; i++) {
        double f, z;
        cr_assert(wb_photo_preset_values(&p[i], &f, &z), "%s fits", p[i].name);
        cr_expect(z >= 0.16 && z <= 1.0, "%s: ζ %g on the bounce scale", p[i].name, z);
        WbPresetRow r;
        wb_preset_measure(wb_spring_k(f, 0), z, WB_PRESET_RATE, WB_PRESET_INTEGRATOR, &r);
        cr_expect(fabs(r.period - p[i].target.period) <= 0.01, "%s period %g", p[i].name,
                  r.period);
        cr_expect_eq(r.oscillations, p[i].target.oscillations, "%s oscillations %d", p[i].name,
                     r.oscillations);
        cr_expect(fabs(r.settle - p[i].target.settle) <= 0.02, "%s settle %g", p[i].name,
                  r.settle);
    }
}

Test(photo, preset_fit_round_trip)
{
    const double ks[] = {150.0, 300.0};
    const double zs[] = {0.2, 0.45};
    for (int a = 0; a < 2; a++) {
        WbPresetRow r;
        wb_preset_measure(ks[a], zs[a], 240.0, WB_SPRING_EXACT, &r);
        double k, z;
        cr_assert(wb_preset_fit(r.period, r.settle, 240.0, WB_SPRING_EXACT, &k, &z));
        cr_expect(fabs(k / ks[a] - 1) < 1e-4, "k %g vs %g", k, ks[a]);
        cr_expect(fabs(z - zs[a]) < 1e-4, "ζ %g vs %g", z, zs[a]);
    }
}

/* ---------------------------------------------------------------- timeline */

Test(photo, events_apply_at_the_first_step_reaching_their_time)
{
    WbPhotoDef d = def_default();
    WbKey path[] = {{.time = 0.5, .to = pt(0.7, 0.5), .ease = WB_EASE_IN_OUT},
                    {.time = 0.7, .to = pt(0.7, 0.2), .ease = WB_EASE_STEP}};
    WbEvent ev[] = {ev_grab(0.1, 0.5, 0.5, path, 2)};
    WbPhotoSim *sim = make_sim(&d, ev, 1, NULL, 100, 100);
    cr_expect_eq(wb_photo_sim_step_at(sim, 0.1), 24);
    cr_expect_eq(wb_photo_sim_step_at(sim, 1.0 / 3.0), 80);
    advance(sim, 23);
    cr_expect(!wb_photo_sim_grabbing(sim));
    advance(sim, 24);
    cr_expect(wb_photo_sim_grabbing(sim));
    double x, y;
    advance(sim, 72); /* t = 0.3: half way through the in-out segment */
    wb_photo_sim_cursor(sim, &x, &y);
    cr_expect(fabs(x - 0.6) < 1e-12 && fabs(y - 0.5) < 1e-12, "in-out midpoint %g %g", x, y);
    advance(sim, 167); /* t = 0.6958: a step key holds until its time */
    wb_photo_sim_cursor(sim, &x, &y);
    cr_expect(fabs(y - 0.5) < 1e-12, "step key not yet: %g", y);
    advance(sim, 168); /* t = 0.7 */
    wb_photo_sim_cursor(sim, &x, &y);
    cr_expect(fabs(y - 0.2) < 1e-12, "step key reached: %g", y);
    advance(sim, 240); /* after the last key the cursor rests there */
    wb_photo_sim_cursor(sim, &x, &y);
    cr_expect(fabs(x - 0.7) < 1e-12 && fabs(y - 0.2) < 1e-12);
    drive_destroy(sim);
}

Test(photo, settling_under_a_pin_keeps_the_held_shape)
{
    WbPhotoDef d = def_default();
    WbKey path[] = {{.time = 0.5, .to = pt(0.6, 0.5), .ease = WB_EASE_OUT}};
    WbEvent ev[] = {ev_grab(0.0, 0.5, 0.5, path, 1), ev_pin(0.6, 0.5, 0.5, 0.05, "hold"),
                    ev_release(0.7)};
    WbPhotoSim *sim = make_sim(&d, ev, 3, NULL, 100, 100);
    const WbPhotoState *s = wb_photo_sim_state(sim);
    size_t c = vertex(s, 16, 16), n = s->n;
    advance(sim, wb_photo_sim_step_at(sim, 0.8));
    float held = s->x[c];
    float *px = malloc(n * sizeof *px), *py = malloc(n * sizeof *py);
    int64_t step = wb_photo_sim_steps(sim);
    while (!drive_idle(sim) && step < 240 * 60) {
        memcpy(px, s->x, n * sizeof *px);
        memcpy(py, s->y, n * sizeof *py);
        advance(sim, ++step);
    }
    cr_assert(drive_idle(sim), "settles with the pin in place");
    /* the snap that settled it moved nothing by more than √2·eps */
    for (size_t i = 0; i < n; i++)
        cr_assert(hypot(s->x[i] - px[i], s->y[i] - py[i]) <= 1.5e-4, "vertex %zu jumped", i);
    cr_expect(memcmp(&s->x[c], &held, 4) == 0, "held shape kept: %g vs %g", s->x[c], held);
    for (size_t i = 0; i < n; i++)
        cr_assert(s->vx[i] == 0.0f && s->vy[i] == 0.0f);
    WbPhotoStats st;
    wb_photo_sim_stats(sim, &st);
    cr_expect(!st.moving && st.max_displacement > 0.09 && st.max_speed == 0.0);
    free(px);
    free(py);
    drive_destroy(sim);
}

Test(photo, published_preset_values_reproduce_the_table)
{
    /* The values quoted to the scene loader (6 significant digits of the
     * fit) must reproduce the rows too. */
    const struct { const char *name; double f, z; } pub[] = {
        {"spring", 2.52432, 0.174806},
        {"rubber", 2.09825, 0.377106},
        {"jelly", 1.61413, 0.202637},
    };
    size_t n;
    const WbPhotoPreset *p = wb_photo_presets(&n);
    for (size_t i = 0; i < 3; i++) {
        double f, z;
        cr_assert_str_eq(p[i].name, pub[i].name);
        cr_assert(wb_photo_preset_values(&p[i], &f, &z));
        cr_expect(fabs(f - pub[i].f) < 1e-5 && fabs(z - pub[i].z) < 1e-6, "fit %g %g", f, z);
        WbPresetRow r;
        wb_preset_measure(wb_spring_k(pub[i].f, 0), pub[i].z, WB_PRESET_RATE, WB_PRESET_INTEGRATOR,
                          &r);
        cr_expect(fabs(r.period - p[i].target.period) <= 0.01);
        cr_expect_eq(r.oscillations, p[i].target.oscillations);
        cr_expect(fabs(r.settle - p[i].target.settle) <= 0.02);
    }
}

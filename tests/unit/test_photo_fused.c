/* test_photo_fused.c — n steps fused into one pass (wb_photo_step_n) give
 * the floats of n single steps, bit for bit, in every mode; and the photo
 * timeline, whose advance() fuses runs of steps, gives the states, counters
 * and stats of advancing one step at a time (runs of one). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/photo.h"
#include "sim/photo_sim.h"
#include "sim/spring.h"

#include "photo_drive.h"

/* xorshift32: a fixed sequence on every machine. */
static float rnd(unsigned *st)
{
    unsigned x = *st;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *st = x;
    return (float)(x >> 8) / (float)(1u << 24); /* [0, 1) */
}

typedef enum Mode { M_NONE, M_GRAB, M_PIN, M_BOTH, M_HELD_GRAB, M_COUNT } Mode;

/* Two identical states over grid: random displacements and velocities, the
 * weight arrays of the mode (shared, owned by the test, not the states). */
typedef struct Pair {
    WbPhotoState a, b;
    float *grab, *pin;
} Pair;

static void pair_init(Pair *p, int grid, Mode mode, bool at_rest, unsigned seed)
{
    WbError err;
    cr_assert_eq(wb_photo_state_init(&p->a, grid, 300, 200, &err), WB_OK);
    cr_assert_eq(wb_photo_state_init(&p->b, grid, 300, 200, &err), WB_OK);
    WbPhotoState *s = &p->a;
    size_t n = s->n;
    unsigned st = seed;
    p->grab = p->pin = NULL;
    if (mode == M_GRAB || mode == M_BOTH || mode == M_HELD_GRAB) {
        p->grab = wb_photo_array_alloc(n);
        for (size_t i = 0; i < n; i++) /* some exact zeros and ones, as the timeline makes */
            p->grab[i] = i % 7 == 0 ? 0.0f : i % 11 == 0 ? 1.0f : rnd(&st);
    }
    if (mode == M_PIN || mode == M_BOTH) {
        p->pin = wb_photo_array_alloc(n);
        for (size_t i = 0; i < n; i++) {
            p->pin[i] = i % 5 == 0 ? 0.0f : rnd(&st);
            if (p->grab)
                p->grab[i] *= 1.0f - p->pin[i]; /* e + p ≤ 1 */
        }
    }
    if (!at_rest)
        for (size_t i = 0; i < n; i++) {
            s->x[i] += 0.1f * (rnd(&st) - 0.5f);
            s->y[i] += 0.1f * (rnd(&st) - 0.5f);
            s->vx[i] = rnd(&st) - 0.5f;
            s->vy[i] = rnd(&st) - 0.5f;
        }
    s->settled = at_rest;
    if (mode == M_HELD_GRAB) {
        /* weight 0 on a band, at rest with zero velocity: the rest
         * invariant (photo.h) keeps them there bit for bit */
        for (size_t i = 0; i < n; i++) {
            float m = i % 13 < 4 ? 0.0f : rnd(&st);
            p->grab[i] *= m;
            if (m == 0.0f) {
                s->x[i] = s->rx[i], s->y[i] = s->ry[i];
                s->vx[i] = s->vy[i] = 0.0f;
            }
        }
    }
    WbPhotoState *t = &p->b;
    size_t bytes = n * sizeof(float);
    memcpy(t->x, s->x, bytes);
    memcpy(t->y, s->y, bytes);
    memcpy(t->vx, s->vx, bytes);
    memcpy(t->vy, s->vy, bytes);
    t->settled = s->settled;
    p->a.grab = p->b.grab = p->grab;
    p->a.pin = p->b.pin = p->pin;
}

static void pair_free(Pair *p)
{
    p->a.grab = p->b.grab = p->a.pin = p->b.pin = NULL;
    wb_photo_state_free(&p->a);
    wb_photo_state_free(&p->b);
    wb_photo_array_free(p->grab);
    wb_photo_array_free(p->pin);
}

static void expect_same_state(const WbPhotoState *a, const WbPhotoState *b, const char *what)
{
    size_t bytes = a->n * sizeof(float);
    cr_assert(memcmp(a->x, b->x, bytes) == 0, "x differs: %s", what);
    cr_assert(memcmp(a->y, b->y, bytes) == 0, "y differs: %s", what);
    cr_assert(memcmp(a->vx, b->vx, bytes) == 0, "vx differs: %s", what);
    cr_assert(memcmp(a->vy, b->vy, bytes) == 0, "vy differs: %s", what);
    cr_assert_eq(a->settled, b->settled, "settled differs: %s", what);
}

/* Cursor increments of a run: random, with exact zeros (no pull) for the
 * first `still` steps. */
static void deltas(float *ddx, float *ddy, int n, int still, unsigned *st)
{
    for (int j = 0; j < n; j++) {
        bool zero = j < still;
        ddx[j] = zero ? 0.0f : 0.01f * (rnd(st) - 0.5f);
        ddy[j] = zero ? 0.0f : j % 3 == 0 ? 0.0f : 0.01f * (rnd(st) - 0.5f);
    }
}

/* n single steps on a, one fused run on b: same floats, same flag, the
 * number of steps that ran, and the NaN scan of the result. */
static void check_run(Pair *p, const WbPhotoStep *c, int n, const float *ddx, const float *ddy,
                      const char *what)
{
    int ran = 0;
    for (int j = 0; j < n; j++) {
        bool skip = p->a.settled && !(p->a.grab && (ddx[j] != 0.0f || ddy[j] != 0.0f));
        wb_photo_step(&p->a, c, ddx[j], ddy[j]);
        ran += !skip;
    }
    int64_t bad = -2;
    int ran_b = wb_photo_step_n(&p->b, c, n, ddx, ddy, &bad);
    expect_same_state(&p->a, &p->b, what);
    cr_assert_eq(ran_b, ran, "steps run %d, single steps ran %d: %s", ran_b, ran, what);
    cr_assert_eq(bad, wb_photo_find_nonfinite(&p->a), "nonfinite scan: %s", what);
}

static void coefs(WbPhotoStep *c)
{
    double k = wb_spring_k(2.0, 0.0), dt = 1.0 / 240.0;
    cr_assert(wb_photo_step_coef(&c[0], k, 0.3, dt, WB_SPRING_EULER));
    cr_assert(wb_photo_step_coef(&c[1], k, 0.3, dt, WB_SPRING_EXACT));
}

Test(photo_fused, n_steps_equal_n_single_steps_in_every_mode)
{
    WbPhotoStep c[2];
    coefs(c);
    /* grid 40: 1681 vertices, not a multiple of the lane count or the
     * block; grid 1: a single lane block. */
    const int grids[] = {1, 40};
    unsigned st = 12345;
    char what[128];
    for (int g = 0; g < 2; g++)
        for (int integ = 0; integ < 2; integ++)
            for (int mode = 0; mode < M_COUNT; mode++)
                for (int n = 1; n <= 10; n++) {
                    Pair p;
                    pair_init(&p, grids[g], (Mode)mode, false, st + (unsigned)n);
                    float ddx[10], ddy[10];
                    deltas(ddx, ddy, n, 0, &st);
                    snprintf(what, sizeof what, "grid %d integrator %d mode %d n %d", grids[g],
                             integ, mode, n);
                    check_run(&p, &c[integ], n, ddx, ddy, what);
                    /* and a second run on the result (state not fresh) */
                    deltas(ddx, ddy, n, 0, &st);
                    check_run(&p, &c[integ], n, ddx, ddy, what);
                    pair_free(&p);
                }
}

Test(photo_fused, settled_state_skips_until_the_first_pull)
{
    WbPhotoStep c[2];
    coefs(c);
    unsigned st = 777;
    char what[128];
    for (int integ = 0; integ < 2; integ++)
        for (int mode = 0; mode < M_COUNT; mode++)
            for (int n = 1; n <= 10; n++)
                for (int still = 0; still <= n; still++) {
                    Pair p;
                    pair_init(&p, 40, (Mode)mode, true, st);
                    float ddx[10], ddy[10];
                    deltas(ddx, ddy, n, still, &st);
                    snprintf(what, sizeof what, "settled, integrator %d mode %d n %d still %d",
                             integ, mode, n, still);
                    check_run(&p, &c[integ], n, ddx, ddy, what);
                    bool pulled = p.grab && still < n;
                    cr_assert_eq(p.b.settled, !pulled, "%s", what);
                    pair_free(&p);
                }
}

Test(photo_fused, zero_steps_change_nothing_and_still_scan)
{
    WbPhotoStep c[2];
    coefs(c);
    Pair p;
    pair_init(&p, 40, M_BOTH, false, 99);
    p.b.vy[1500] = INFINITY;
    int64_t bad = -2;
    cr_assert_eq(wb_photo_step_n(&p.b, &c[0], 0, NULL, NULL, &bad), 0);
    cr_assert_eq(bad, 1500);
    cr_assert(!p.b.settled);
    pair_free(&p);
}

Test(photo_fused, nonfinite_vertex_is_found_in_its_block)
{
    WbPhotoStep c[2];
    coefs(c);
    unsigned st = 4242;
    /* one bad vertex in the second block, then two (the first one counts),
     * then a NaN that enters through the grab weight, not the state */
    const size_t where[] = {1100, 1680};
    for (int integ = 0; integ < 2; integ++) {
        Pair p;
        pair_init(&p, 40, M_GRAB, false, st);
        float ddx[4], ddy[4];
        p.a.x[where[1]] = p.b.x[where[1]] = NAN;
        deltas(ddx, ddy, 4, 0, &st);
        check_run(&p, &c[integ], 4, ddx, ddy, "one NaN");
        cr_assert_eq(wb_photo_find_nonfinite(&p.b), (int64_t)where[1]);
        p.a.vx[where[0]] = p.b.vx[where[0]] = INFINITY;
        check_run(&p, &c[integ], 4, ddx, ddy, "Inf before the NaN");
        cr_assert_eq(wb_photo_find_nonfinite(&p.b), (int64_t)where[0]);
        pair_free(&p);

        pair_init(&p, 40, M_GRAB, false, st);
        p.grab[17] = NAN;
        check_run(&p, &c[integ], 4, ddx, ddy, "NaN weight");
        cr_assert_eq(wb_photo_find_nonfinite(&p.b), 17);
        pair_free(&p);
    }
}

/* ---------------------------------------------------------------- timeline */

static WbPoint pt(double x, double y)
{
    return (WbPoint){.x = x, .y = y};
}

/* A timeline that acts between steps in every way: grab with eased path
 * keys, a pin during the drag, a grab that the grip lets go, an unpin, a
 * release, a late grab with a pull that never moves (settled state, no pull)
 * and one that ends on a step key. */
static size_t busy_timeline(WbEvent *ev, WbKey *p1, WbKey *p2, WbKey *p3)
{
    p1[0] = (WbKey){.time = 0.31, .to = pt(0.6, 0.55), .ease = WB_EASE_IN_OUT};
    p1[1] = (WbKey){.time = 0.403, .to = pt(0.62, 0.5), .ease = WB_EASE_LINEAR};
    p2[0] = (WbKey){.time = 0.9, .to = pt(0.1, 0.1), .ease = WB_EASE_OUT};
    p3[0] = (WbKey){.time = 2.2, .to = pt(0.42, 0.4), .ease = WB_EASE_STEP};
    size_t n = 0;
    ev[n++] = (WbEvent){.type = WB_EVENT_GRAB, .time = 0.1013};
    ev[n - 1].u.grab.at = pt(0.5, 0.5);
    ev[n - 1].u.grab.radius.automatic = true;
    ev[n - 1].u.grab.path = p1;
    ev[n - 1].u.grab.n_path = 2;
    ev[n++] = (WbEvent){.type = WB_EVENT_PIN, .time = 0.2};
    ev[n - 1].u.pin.at = pt(0.3, 0.3);
    ev[n - 1].u.pin.radius.automatic = true;
    snprintf(ev[n - 1].u.pin.name, sizeof ev[n - 1].u.pin.name, "a");
    ev[n++] = (WbEvent){.type = WB_EVENT_GRAB, .time = 0.5}; /* the grip lets go of this one */
    ev[n - 1].u.grab.at = pt(0.5, 0.6);
    ev[n - 1].u.grab.radius.automatic = true;
    ev[n - 1].u.grab.path = p2;
    ev[n - 1].u.grab.n_path = 1;
    ev[n++] = (WbEvent){.type = WB_EVENT_UNPIN, .time = 1.0171};
    snprintf(ev[n - 1].u.unpin.name, sizeof ev[n - 1].u.unpin.name, "a");
    ev[n++] = (WbEvent){.type = WB_EVENT_GRAB, .time = 2.0};
    ev[n - 1].u.grab.at = pt(0.4, 0.4);
    ev[n - 1].u.grab.radius.automatic = true;
    ev[n - 1].u.grab.path = p3;
    ev[n - 1].u.grab.n_path = 1;
    ev[n++] = (WbEvent){.type = WB_EVENT_RELEASE, .time = 2.5};
    return n;
}

static void expect_same_sim(const WbPhotoSim *a, const WbPhotoSim *b, int64_t at)
{
    cr_assert_eq(wb_photo_sim_steps(a), at);
    cr_assert_eq(wb_photo_sim_steps(b), at);
    cr_assert_eq(wb_photo_sim_hash(a), wb_photo_sim_hash(b), "hash at step %lld", (long long)at);
    cr_assert_eq(wb_photo_sim_generation(a), wb_photo_sim_generation(b),
                 "generation at step %lld", (long long)at);
    WbPhotoStats sa, sb;
    wb_photo_sim_stats(a, &sa);
    wb_photo_sim_stats(b, &sb);
    cr_assert(sa.moving == sb.moving && sa.max_displacement == sb.max_displacement &&
                  sa.max_speed == sb.max_speed && sa.time == sb.time &&
                  sa.settled_at == sb.settled_at && sa.grabbing == sb.grabbing,
              "stats at step %lld: settled_at %g vs %g", (long long)at, sa.settled_at,
              sb.settled_at);
    cr_assert_eq(drive_idle(a), drive_idle(b));
    double ax, ay, bx, by;
    wb_photo_sim_cursor(a, &ax, &ay);
    wb_photo_sim_cursor(b, &bx, &by);
    cr_assert(ax == bx && ay == by);
}

/* a advances one step per call (every run is one step, i.e. wb_photo_step),
 * b one frame per call (runs as long as the timeline allows). */
static void timeline_case(double rate, double eps, double fps, WbIntegrator integ)
{
    WbPhotoDef d;
    memset(&d, 0, sizeof d);
    d.grid = 40;
    d.frequency = 3.0;
    d.bounce = 0.5;
    d.integrator = integ;
    d.rate = rate;
    d.radius.automatic = true;
    d.grip = 0.12;
    d.settle_epsilon = eps;
    WbEvent ev[8];
    WbKey p1[2], p2[1], p3[1];
    size_t n = busy_timeline(ev, p1, p2, p3);
    WbPhotoSim *a = NULL, *b = NULL;
    WbError err;
    cr_assert_eq(drive_create(&a, &d, ev, n, 120, 90, NULL, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(drive_create(&b, &d, ev, n, 120, 90, NULL, &err), WB_OK, "%s", err.msg);
    bool let_go = false, settled_once = false;
    for (int f = 1; f <= (int)(4.0 * fps); f++) {
        int64_t to = wb_photo_sim_step_at(b, f / fps);
        for (int64_t s = wb_photo_sim_steps(a) + 1; s <= to; s++) {
            cr_assert_eq(drive_advance(a, s, &err), WB_OK, "%s", err.msg);
            let_go |= !wb_photo_sim_grabbing(a) && f / fps > 0.5 && f / fps < 0.9;
        }
        cr_assert_eq(drive_advance(b, to, &err), WB_OK, "%s", err.msg);
        expect_same_sim(a, b, to);
        WbPhotoStats st;
        wb_photo_sim_stats(b, &st);
        settled_once |= !st.moving && f / fps > 1.2;
    }
    /* the timeline did exercise what it is meant to */
    cr_assert(let_go, "the grip never let go");
    cr_assert(eps == 0 || settled_once, "the mesh never settled");
    drive_destroy(a);
    drive_destroy(b);
}

Test(photo_fused, advance_by_frames_equals_advance_by_steps)
{
    timeline_case(240, 1e-4, 60, WB_INTEGRATOR_EULER);
    timeline_case(240, 1e-4, 24, WB_INTEGRATOR_EXACT);
    timeline_case(240, 1e-4, 7, WB_INTEGRATOR_EULER);
    /* no settle test: runs grow to their cap */
    timeline_case(1000, 0.0, 24, WB_INTEGRATOR_EULER);
    timeline_case(1000, 1e-3, 10, WB_INTEGRATOR_EXACT);
}

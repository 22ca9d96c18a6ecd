/* test_cloth_teleport.c — a cloth teleport moves the sheet with its pins
 * and bodies and nothing else: right after it, every particle is where the
 * untouched run has it plus the shift (within float rounding of the add),
 * with the same velocity; later, the two runs stay the same sheet, shifted,
 * within what float rounding at other coordinates grows into. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "run/runner.h"
#include "run/timeline.h"
#include "scene/scene.h"
#include "scene/scene_load.h"
#include "sim/cloth.h"

/* A flag on a pole (pins, a box) and a ball it brushes (a sphere body). */
static const char flag[] =
    "wobble: 1\nkind: cloth\noutput: {width: 64, height: 48}\n"
    "cloth:\n  layout: vertical\n  size: [1.0, 0.6]\n  grid: 16\n  centre: [0, 1.6, 0]\n"
    "  pin: left-edge\n  fabric: cotton\n"
    "  boxes: [{centre: [-0.52, 1.0, 0], size: [0.04, 2.0, 0.04]}]\n"
    "  spheres: [{centre: [0.3, 1.0, 0.1], radius: 0.25}]\n"
    "  wind: {strength: 10, direction: [1, 0, 0.3]}\n";

typedef struct Run {
    WbScene scene;
    WbRunner r;
} Run;

static void start(Run *run, const char *timeline)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s", flag, timeline);
    WbError e;
    wb_error_clear(&e);
    cr_assert_eq(wb_scene_load_string("t.yaml", text, NULL, 0, &run->scene, &e), WB_OK, "%s",
                 e.msg);
    WbRunnerOptions opt = {.aa = 1};
    cr_assert_eq(wb_runner_create(&run->r, &run->scene, &opt, &e), WB_OK, "%s", e.msg);
}

static void advance(Run *run, int64_t step)
{
    WbError e;
    cr_assert_eq(run->r.advance(run->r.self, step, &e), WB_OK, "%s", e.msg);
}

static const float *points(Run *run, size_t *n)
{
    WbMotion m;
    WbError e;
    cr_assert_eq(run->r.motion(run->r.self, &m, &e), WB_OK);
    *n = m.n_points;
    return m.points;
}

static void stop(Run *run)
{
    run->r.destroy(run->r.self);
    wb_scene_free(&run->scene);
}

/* The largest |a − b − by| over every coordinate of every particle. */
static double worst(Run *a, Run *b, const double by[3])
{
    size_t na, nb;
    const float *pa = points(a, &na), *pb = points(b, &nb);
    cr_assert_eq(na, nb);
    double w = 0.0;
    for (size_t k = 0; k < 3 * na; k++)
        w = fmax(w, fabs((double)pa[k] - (double)pb[k] - by[k % 3]));
    return w;
}

Test(cloth_teleport, the_sheet_moves_with_its_pins_and_bodies)
{
    const double by[3] = {0.75, -0.25, 0.5};
    Run moved, still;
    start(&moved, "timeline: [{time: 0.5, teleport: {by: [0.75, -0.25, 0.5]}}]\n");
    start(&still, "");
    double rate = moved.r.rate;
    int64_t at = wb_timeline_event_step(0.5, rate);
    advance(&moved, at);
    advance(&still, at);
    cr_assert_eq(worst(&moved, &still, (const double[3]){0, 0, 0}), 0.0);
    /* the step that fires it: the teleport, then one substep */
    advance(&moved, at + 1);
    advance(&still, at + 1);
    double w1 = worst(&moved, &still, by);
    cr_expect_lt(w1, 1e-5, "after one substep: %g m", w1);
    /* half a second on: the same flag, shifted (the link is 6.7 cm) */
    advance(&moved, at + (int64_t)(0.5 * rate));
    advance(&still, at + (int64_t)(0.5 * rate));
    double w2 = worst(&moved, &still, by);
    cr_expect_lt(w2, 2e-3, "0.5 s later: %g m", w2);
    cr_log_info("cloth teleport: %g m after one substep, %g m 0.5 s later", w1, w2);
    stop(&moved);
    stop(&still);
}

/* The solver alone: particles, previous positions (so velocities) and
 * bodies move by exactly the float sum; the floor stays. */
Test(cloth_teleport, translate_moves_positions_velocities_and_bodies)
{
    WbClothDef def = wb_cloth_default(); /* the dress form and a floor */
    def.nx = def.ny = 12;
    def.n_spheres = 1;
    def.spheres[0] = (WbSphere){1, 2, 3, 0.5f};
    def.n_boxes = 1;
    def.boxes[0] = (WbBox){.c = {-1, 0.5f, 0}, .h = {0.1f, 0.1f, 0.1f}};
    WbClothState s, t;
    WbError e;
    cr_assert_eq(wb_cloth_init(&s, &def, &e), WB_OK, "%s", e.msg);
    cr_assert_eq(wb_cloth_init(&t, &def, &e), WB_OK, "%s", e.msg);
    for (int k = 0; k < 20; k++) {
        wb_cloth_substep(&s, &def, k / 360.0, 1.0f / 360);
        wb_cloth_substep(&t, &def, k / 360.0, 1.0f / 360);
    }
    const float by[3] = {0.5f, 0.25f, -2.0f};
    wb_cloth_translate(&t, by);
    for (int k = 0; k < s.n; k++) {
        cr_assert_eq(t.x[k], s.x[k] + by[0]);
        cr_assert_eq(t.pz[k], s.pz[k] + by[2]);
        cr_assert_eq(t.y[k] - t.py[k], (s.y[k] + by[1]) - (s.py[k] + by[1]));
    }
    cr_assert_eq(t.n_spheres, s.n_spheres);
    for (int k = 0; k < s.n_spheres; k++) {
        cr_assert_eq(t.spheres[k].x, s.spheres[k].x + by[0]);
        cr_assert_eq(t.spheres[k].y, s.spheres[k].y + by[1]);
        cr_assert_eq(t.spheres[k].r, s.spheres[k].r);
    }
    cr_assert_eq(t.boxes[0].c[2], s.boxes[0].c[2] + by[2]);
    cr_assert_eq(t.body_lo[0], s.body_lo[0] + by[0]);
    wb_cloth_free(&s);
    wb_cloth_free(&t);
}

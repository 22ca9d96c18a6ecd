/* test_jiggle_outline.c — the 2D jiggle shapes: outline geometry against
 * its definition, the polar UV, and the preset paint's bones. */
#include <criterion/criterion.h>
#include <math.h>

#include "sim/jiggle_outline.h"

#define N 96

/* Distance from p to the capsule's core segment (0, ±L). */
static double seg_dist(double x, double y)
{
    double L = WB_OUTLINE_CAPSULE_L, cy = y > L ? L : y < -L ? -L : y;
    return sqrt(x * x + (y - cy) * (y - cy));
}

Test(jiggle_outline, capsule_points_lie_on_the_pill_on_their_rays)
{
    float xy[2 * N];
    wb_outline_points(WB_OUTLINE_CAPSULE, N, xy, NULL);
    for (int i = 0; i < N; i++) {
        double x = xy[2 * i], y = xy[2 * i + 1], a = 2.0 * M_PI * i / N;
        cr_expect(fabs(seg_dist(x, y) - WB_OUTLINE_CAPSULE_R) < 1e-6, "point %d off the pill", i);
        /* on the ray at angle a: cross product with the direction is 0 */
        cr_expect(fabs(x * sin(a) - y * cos(a)) < 1e-6, "point %d off its ray", i);
        cr_expect(x * cos(a) + y * sin(a) > 0, "point %d behind the centre", i);
    }
    /* 2 units tall, 2R wide */
    cr_expect(fabs(xy[2 * (N / 4) + 1] - 1.0) < 1e-6);
    cr_expect(fabs(xy[0] - WB_OUTLINE_CAPSULE_R) < 1e-6);
}

Test(jiggle_outline, ring_hole_pairs_with_the_rim)
{
    float o[2 * N], in[2 * N];
    wb_outline_points(WB_OUTLINE_RING, N, o, in);
    cr_expect(wb_outline_has_hole(WB_OUTLINE_RING));
    cr_expect(!wb_outline_has_hole(WB_OUTLINE_DISC));
    for (int i = 0; i < N; i++) {
        cr_expect(fabs(hypot(o[2 * i], o[2 * i + 1]) - 1.0) < 1e-6);
        cr_expect(fabs(in[2 * i] - WB_OUTLINE_RING_INNER * o[2 * i]) < 1e-6);
        cr_expect(fabs(in[2 * i + 1] - WB_OUTLINE_RING_INNER * o[2 * i + 1]) < 1e-6);
    }
}

Test(jiggle_outline, polar_uv)
{
    double uv[2];
    wb_outline_uv(1, 0, uv);
    cr_expect(fabs(uv[0] - 0.5) < 1e-15 && fabs(uv[1] - 0.5) < 1e-15);
    wb_outline_uv(0, 1, uv);
    cr_expect(fabs(uv[0] - 0.75) < 1e-15 && fabs(uv[1]) < 1e-15);
    wb_outline_uv(0, -1, uv);
    cr_expect(fabs(uv[0] - 0.25) < 1e-15 && fabs(uv[1] - 1.0) < 1e-15);
    wb_outline_uv(0, -3, uv);
    cr_expect(uv[1] == 1.0, "v clamps");
}

/* Sampled on the outline, each preset has three bones, each strongest where
 * the header says. */
static void strongest(WbOutlineShape s, double angle_deg[3])
{
    WbWeightMap m;
    WbError e;
    cr_assert_eq(wb_weightmap_init(&m, 512, 256, &e), WB_OK);
    wb_outline_preset(&m, s);
    float xy[2 * 360];
    wb_outline_points(s, 360, xy, NULL);
    for (int b = 0; b < 3; b++) {
        float best = -1;
        for (int i = 0; i < 360; i++) {
            double uv[2];
            float w[3];
            wb_outline_uv(xy[2 * i], xy[2 * i + 1], uv);
            wb_weightmap_sample(&m, uv[0], uv[1], w);
            if (w[b] > best) {
                best = w[b];
                angle_deg[b] = i;
            }
        }
        cr_expect(best > 0.4f, "shape %d bone %d barely painted (%g)", (int)s, b, best);
    }
    wb_weightmap_free(&m);
}

static double ang_dist(double a, double b)
{
    double d = fmod(fabs(a - b), 360.0);
    return d > 180 ? 360 - d : d;
}

Test(jiggle_outline, presets_put_three_bones_where_documented)
{
    double a[3];
    strongest(WB_OUTLINE_DISC, a);
    cr_expect(ang_dist(a[0], 270) < 12 && ang_dist(a[1], 0) < 12 && ang_dist(a[2], 180) < 12,
              "disc %g %g %g", a[0], a[1], a[2]);
    strongest(WB_OUTLINE_RING, a);
    cr_expect(ang_dist(a[0], 270) < 12 && ang_dist(a[1], 30) < 12 && ang_dist(a[2], 150) < 12,
              "ring %g %g %g", a[0], a[1], a[2]);
    strongest(WB_OUTLINE_CAPSULE, a);
    cr_expect(ang_dist(a[0], 270) < 15, "capsule bottom %g", a[0]);
    cr_expect(ang_dist(a[1], 0) < 20 && ang_dist(a[2], 180) < 20, "capsule %g %g", a[1], a[2]);
}

Test(jiggle_outline, names)
{
    WbOutlineShape s;
    cr_expect(wb_outline_shape_from_name("ring", &s) && s == WB_OUTLINE_RING);
    cr_expect(wb_outline_shape_from_name("capsule", &s) && s == WB_OUTLINE_CAPSULE);
    cr_expect(!wb_outline_shape_from_name("orb", &s));
}

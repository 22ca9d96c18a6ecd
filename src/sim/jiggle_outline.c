/* jiggle_outline.c — 2D jiggle shapes: outlines, UV, preset paint (see
 * jiggle_outline.h). */
#include "sim/jiggle_outline.h"

#include <math.h>
#include <string.h>

bool wb_outline_shape_from_name(const char *name, WbOutlineShape *shape)
{
    static const char *const names[] = {"disc", "capsule", "ring"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, names[i])) {
            *shape = (WbOutlineShape)i;
            return true;
        }
    return false;
}

bool wb_outline_has_hole(WbOutlineShape shape)
{
    return shape == WB_OUTLINE_RING;
}

/* Distance from the origin to the capsule's boundary along the unit ray
 * (c, s).  The capsule is convex and contains the origin, so the distance
 * to its core segment grows monotonically along the ray: bisection on
 * dist(t·(c, s), segment) = R converges to the crossing, 60 halvings to
 * below a double's resolution of the [0, R + L] bracket. */
static double capsule_reach(double c, double s)
{
    const double R = WB_OUTLINE_CAPSULE_R, L = WB_OUTLINE_CAPSULE_L;
    double lo = 0.0, hi = R + L;
    for (int it = 0; it < 60; it++) {
        double t = 0.5 * (lo + hi), x = t * c, y = t * s;
        double cy = y > L ? L : y < -L ? -L : y;
        double d = sqrt(x * x + (y - cy) * (y - cy));
        if (d < R)
            lo = t;
        else
            hi = t;
    }
    return 0.5 * (lo + hi);
}

void wb_outline_points(WbOutlineShape shape, int n, float *xy, float *inner)
{
    for (int i = 0; i < n; i++) {
        double a = 2.0 * M_PI * i / n, c = cos(a), s = sin(a);
        double r = shape == WB_OUTLINE_CAPSULE ? capsule_reach(c, s) : 1.0;
        xy[2 * i] = (float)(r * c);
        xy[2 * i + 1] = (float)(r * s);
        if (inner && shape == WB_OUTLINE_RING) {
            inner[2 * i] = (float)(WB_OUTLINE_RING_INNER * c);
            inner[2 * i + 1] = (float)(WB_OUTLINE_RING_INNER * s);
        }
    }
}

void wb_outline_uv(double x, double y, double uv[2])
{
    uv[0] = atan2(y, x) / (2.0 * M_PI) + 0.5;
    double v = 0.5 - 0.5 * y;
    uv[1] = v < 0 ? 0 : v > 1 ? 1 : v;
}

void wb_outline_preset(WbWeightMap *m, WbOutlineShape shape)
{
    wb_weightmap_clear(m);
    switch (shape) {
    case WB_OUTLINE_DISC:
        /* the bottom hangs and sags most; the flanks are softer */
        wb_weightmap_stamp(m, 0, 0.25, 0.97, 1.0, 0.30);
        wb_weightmap_stamp(m, 1, 0.50, 0.50, 0.65, 0.28);
        wb_weightmap_stamp(m, 2, 0.00, 0.50, 0.65, 0.28);
        break;
    case WB_OUTLINE_CAPSULE:
        wb_weightmap_stamp(m, 0, 0.25, 0.95, 1.0, 0.34);
        wb_weightmap_stamp(m, 1, 0.50, 0.55, 0.60, 0.30);
        wb_weightmap_stamp(m, 2, 0.00, 0.55, 0.60, 0.30);
        break;
    case WB_OUTLINE_RING:
        /* lobes at −90°, 30° and 150° on the outer rim: v = ½ − sin θ / 2 */
        wb_weightmap_stamp(m, 0, 0.25, 1.00, 1.0, 0.26);
        wb_weightmap_stamp(m, 1, 0.25 + 1.0 / 3.0, 0.25, 1.0, 0.26);
        wb_weightmap_stamp(m, 2, 0.25 + 2.0 / 3.0, 0.25, 1.0, 0.26);
        break;
    }
}

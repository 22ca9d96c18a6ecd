/* ramp.h — the smooth 0 → 1 ramp the views fade things in and out with
 * (the floors' fade into the background, the cloth's contact shadow, the
 * 2D shapes' bone tint): 3t² − 2t³ of t = (x − e0)/(e1 − e0) clamped to
 * [0, 1]. */
#ifndef WB_RAMP_H
#define WB_RAMP_H

#include <math.h>

static inline double wb_smoothstep(double e0, double e1, double x)
{
    double t = fmin(1.0, fmax(0.0, (x - e0) / (e1 - e0)));
    return t * t * (3.0 - 2.0 * t);
}

#endif

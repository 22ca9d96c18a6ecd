/* spring.c — per-step coefficients of one damped spring to rest.
 *
 * Exact step.  d'' = -k d - 2ζ√k d' is the damped oscillator of
 * sim/oscillator.h with ω = √k and no forcing, so its propagator over dt,
 *
 *     P = e^{-σt} [ C + σS    S      ]      σ = ζω, C and S the damped
 *                 [ -k S      C - σS ]      cosine and sine (cosh/sinh above ζ = 1),
 *
 * comes from wb_osc_coef(): one implementation of the three regimes (series
 * across critical damping, underdamped, overdamped) for both the photo mesh
 * and the jiggle bones.  See oscillator.c for why none of them loses digits.
 */
#include "sim/spring.h"

#include <assert.h>
#include <math.h>

#include "sim/oscillator.h"

double wb_spring_k(double frequency, double elasticity)
{
    double w = 2.0 * M_PI * frequency;
    return w * w * exp2(elasticity);
}

double wb_spring_c(double k, double zeta)
{
    return zeta * 2.0 * sqrt(k);
}

/* The exact step is the oscillator module's: the same equation with ω = √k,
 * and its propagator is (p11, p12; p21, p22).  The photo step rounds these
 * entries to float (photo.c), and the oscillator's are accurate to a few
 * double ulps of each entry's scale, far below a float's resolution. */
void wb_spring_exact(double k, double zeta, double dt, double p[4])
{
    assert(k > 0 && zeta >= 0 && dt >= 0 && isfinite(k) && isfinite(zeta) && isfinite(dt));
    WbOscCoef c = wb_osc_coef(sqrt(k), zeta, dt);
    p[0] = c.p11;
    p[1] = c.p12;
    p[2] = c.p21;
    p[3] = c.p22;
}

void wb_spring_euler(double k, double zeta, double dt, double p[4])
{
    double c = wb_spring_c(k, zeta);
    p[2] = -k * dt;
    p[3] = 1.0 - c * dt;
    p[0] = 1.0 + dt * p[2];
    p[1] = dt * p[3];
}

double wb_spring_growth(const double p[4])
{
    double tr = 0.5 * (p[0] + p[3]);
    double det = p[0] * p[3] - p[1] * p[2];
    double disc = tr * tr - det;
    if (disc < 0)
        return sqrt(det);
    double r = sqrt(disc);
    return fmax(fabs(tr + r), fabs(tr - r));
}

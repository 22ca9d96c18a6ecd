/* spring.h — one damped spring to rest, turned into per-step coefficients.
 *
 * Every photo vertex is an independent oscillator around its rest point
 * (SPEC 4.1): with d = x - rest,
 *
 *     d'' = -k d - c d',      k = ω² (1/s²),  c = 2 ζ ω (1/s)
 *
 * Users give the spring as a frequency f0 (Hz) and an elasticity s in [-1, 1]
 * (k = (2π f0)² · 2^s) and the damping ratio ζ directly; c is always derived
 * as ζ · 2√k, so changing k never retunes the bounce.
 *
 * Two integrators share one shape, a 2×2 map of (d, v) per step:
 *   Euler (semi-implicit): v ← v - k dt d - c dt v ;  d ← d + dt v.
 *     Stable while the map's spectral radius is ≤ 1 (roughly ω dt < 2).
 *   Exact: the closed-form solution over dt, P = exp(dt [[0, 1], [-k, -c]]),
 *     computed once in double by the damped oscillator's exact step
 *     (oscillator.h, ω = √k); stable for every dt, no digits lost near ζ = 1.
 */
#ifndef WB_SPRING_H
#define WB_SPRING_H

#include <stdbool.h>

/* Which of the two step maps above a solver uses. */
typedef enum WbSpringIntegrator { WB_SPRING_EULER, WB_SPRING_EXACT } WbSpringIntegrator;

/* k from frequency (Hz, > 0) and elasticity s: (2π f0)² · 2^s, in 1/s². */
double wb_spring_k(double frequency, double elasticity);

/* Damping coefficient for ratio zeta: ζ · 2√k, in 1/s. */
double wb_spring_c(double k, double zeta);

/* The exact propagator over dt of d'' = -k d - 2ζ√k d':
 *     (d1, v1) = (p[0] d0 + p[1] v0,  p[2] d0 + p[3] v0)
 * k > 0 (1/s²), zeta ≥ 0, dt ≥ 0 (s), all finite.  Each entry is accurate to
 * a few ulp of its own scale for every ζ, including ζ = 1 ± 1e-12. */
void wb_spring_exact(double k, double zeta, double dt, double p[4]);

/* The semi-implicit Euler step written as the same kind of map:
 *     v1 = -k dt d0 + (1 - c dt) v0 ;  d1 = d0 + dt v1. */
void wb_spring_euler(double k, double zeta, double dt, double p[4]);

/* Largest eigenvalue modulus of a step map p (as above): the per-step growth
 * of the slowest-decaying mode.  ≤ 1 means the integration cannot blow up. */
double wb_spring_growth(const double p[4]);

#endif

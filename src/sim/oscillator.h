/* oscillator.h — the exact step of a damped, constantly forced oscillator.
 *
 * The equation (one axis, unit mass; everything per unit mass):
 *
 *     x'' + 2 ζ ω x' + ω² x = f,      ω ≥ 0 (rad/s), ζ ≥ 0, f constant
 *
 * Over a step of length dt the exact solution is linear in (x, v, f):
 *
 *     x1 = p11 x0 + p12 v0 + gx f
 *     v1 = p21 x0 + p22 v0 + gv f
 *
 * with P = exp(dt · [[0, 1], [-ω², -2ζω]]) and the forcing vector
 * g = ∫0^dt P(τ) e2 dτ: gv = p12 and gx = (1 - p11)/ω² (→ dt²/2 at ω = 0).
 * This is the equilibrium shift x_eq = f/ω² of the textbook solution written
 * so that ω = 0 (free particle, x1 = x0 + v0 dt + f dt²/2) needs no special
 * case and a tiny ω loses no digits to the huge x_eq.
 *
 * Accuracy: every coefficient is within a few ulp of its own scale
 * (1 for p11 and p22, min(dt, 1/ω) for p12, min(dt², 1/ω²) for gx) for all
 * ζ in [0, 1e6] (ζ = 1 ± 1e-9 included), dt in [0, 1e3] s, ω up to 1e3 rad/s
 * and beyond; the unit tests check 1e-12 against a 113-bit reference.
 * Stable for any finite dt: with f = 0 the energy ½v² + ½ω²x² never grows
 * (up to round-off), for any ζ ≥ 0 and dt ≥ 0.  See oscillator.c for the
 * three evaluation regimes and why each is free of cancellation.
 *
 * Preconditions (asserted): ω, ζ, dt finite and ≥ 0.
 *
 * The one implementation of this step: the jiggle bones use it, and so does
 * the photo spring's exact integrator (spring.h: wb_spring_exact, ω = √k,
 * f = 0).
 */
#ifndef WB_OSCILLATOR_H
#define WB_OSCILLATOR_H

/* The step as a 2×2 propagator plus forcing vector, for one (ω, ζ, dt).
 * A caller stepping many axes or bones that share ω, ζ and dt computes it
 * once and applies it to each. */
typedef struct WbOscCoef {
    double p11, p12; /* x row of the propagator (p12 in seconds) */
    double p21, p22; /* v row (p21 in 1/s²) */
    double gx, gv;   /* response to unit constant forcing: s² and s */
} WbOscCoef;

/* Coefficients of the exact step.  omega in rad/s, zeta dimensionless,
 * dt in seconds.  dt = 0 gives the identity. */
WbOscCoef wb_osc_coef(double omega, double zeta, double dt);

/* Apply coefficients to one axis in place: (x, v) ← step with forcing f. */
static inline void wb_osc_apply(const WbOscCoef *c, double *x, double *v, double f)
{
    double x0 = *x, v0 = *v;
    *x = c->p11 * x0 + c->p12 * v0 + c->gx * f;
    *v = c->p21 * x0 + c->p22 * v0 + c->gv * f;
}

/* One exact step of x'' + 2ζω x' + ω² x = f over dt, in place.
 * x in any length unit, v in that unit per second, f in that unit per s². */
void wb_osc_step(double *x, double *v, double omega, double zeta, double f, double dt);

#endif

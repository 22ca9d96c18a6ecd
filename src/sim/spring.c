/* spring.c — per-step coefficients of one damped spring to rest.
 *
 * Exact step.  With ω = √k, σ = ζω and q = ω²(1 - ζ)(1 + ζ) (the squared
 * damped frequency, negative when overdamped; written as a product so it has
 * no cancellation near ζ = 1), the propagator over t = dt is
 *
 *     P = e^{-σt} [ C + σS    S      ]      C = cos(√q t),  S = sin(√q t)/√q
 *                 [ -k S      C - σS ]      (cosh and sinh/√-q when q < 0)
 *
 * Three regimes keep every entry accurate:
 *   |q| t² < 1/4: C and S from their power series in (-q t²), which are the
 *     same series on both sides of critical damping, so ζ = 1 ± ε is as
 *     accurate as ζ = 1;
 *   q > 0 otherwise: cos and sin of ω_d t directly;
 *   q < 0 otherwise: the two real roots r1 = -k/(σ+μ) (slow, written without
 *     the cancelling σ - μ) and r2 = r1 - 2μ, so e^{-σt}cosh and sinh become
 *     sums of e^{r1 t} and e^{r2 t} that neither overflow nor cancel.
 */
#include "sim/spring.h"

#include <assert.h>
#include <math.h>

double wb_spring_k(double frequency, double elasticity)
{
    double w = 2.0 * M_PI * frequency;
    return w * w * exp2(elasticity);
}

double wb_spring_c(double k, double zeta)
{
    return zeta * 2.0 * sqrt(k);
}

/* C(t) and S(t) from their series: with u = -q t²,
 * C = Σ uⁿ/(2n)!,  S = t Σ uⁿ/(2n+1)!.  |u| < 1/4, so 12 terms are far
 * below double round-off. */
static void series_cs(double q, double t, double *c, double *s)
{
    double u = -q * t * t;
    double tc = 1.0, ts = 1.0, sc = 1.0, ss = 1.0;
    for (int n = 1; n < 12; n++) {
        tc *= u / ((2.0 * n - 1.0) * (2.0 * n));
        ts *= u / ((2.0 * n) * (2.0 * n + 1.0));
        sc += tc;
        ss += ts;
    }
    *c = sc;
    *s = ss * t;
}

void wb_spring_exact(double k, double zeta, double dt, double p[4])
{
    assert(k > 0 && zeta >= 0 && dt >= 0 && isfinite(k) && isfinite(zeta) && isfinite(dt));
    double w = sqrt(k);
    double sigma = zeta * w;
    double q = k * (1.0 - zeta) * (1.0 + zeta);
    double t = dt;
    if (fabs(q) * t * t < 0.25 || q > 0) {
        double c, s;
        if (fabs(q) * t * t < 0.25) {
            series_cs(q, t, &c, &s);
        } else {
            double wd = sqrt(q);
            c = cos(wd * t);
            s = sin(wd * t) / wd;
        }
        double e = exp(-sigma * t);
        p[0] = e * (c + sigma * s);
        p[1] = e * s;
        p[2] = -k * e * s;
        p[3] = e * (c - sigma * s);
        return;
    }
    double mu = sqrt(-q);
    double r1 = -k / (sigma + mu);       /* = μ - σ, the slow root */
    double e1 = exp(r1 * t);
    double e2 = exp(-2.0 * mu * t);      /* e^{r2 t} / e^{r1 t} */
    double sh = e1 * -expm1(-2.0 * mu * t) / (2.0 * mu); /* e^{-σt} sinh(μt)/μ */
    p[0] = e1 / (2.0 * mu) * ((mu + sigma) + e2 * r1);
    p[1] = sh;
    p[2] = -k * sh;
    p[3] = e1 / (2.0 * mu) * (r1 + e2 * (mu + sigma));
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

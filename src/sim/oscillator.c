/* oscillator.c — exact step of x'' + 2ζω x' + ω² x = f (see oscillator.h).
 *
 * Design note.  With a = ζω and q² = a² − ω² = (ζ−1)(ζ+1)ω² (the factored
 * form is exact near ζ = 1), the homogeneous propagator is
 *
 *     p12 = e^{−at} S(t),   p11 = e^{−at} (C + a S),   p22 = e^{−at} (C − a S),
 *     p21 = −ω² p12,
 *
 * where C = cosh(qt) and S = sinh(qt)/q are entire functions of q², equal to
 * cos(ω_d t) and sin(ω_d t)/ω_d for q² = −ω_d² < 0.  The textbook switch on ζ
 * writes S as (e^{λ1 t} − e^{λ2 t})/(λ1 − λ2), which cancels catastrophically
 * near ζ = 1, and writes C with cosh, which overflows at large ζω·dt.
 * Three regimes avoid both, chosen by r = q² t² (dimensionless):
 *
 *  1. |r| ≤ 1 — series.  C = Σ r^k/(2k)!, S = t Σ r^k/(2k+1)!; twelve terms
 *     reach 1e-21.  Analytic across ζ = 1, so critical damping is not a
 *     special case.  The forcing coefficient gx = ∫0^t e^{−aτ} S(τ) dτ is
 *     t² Σ r^n/(2n+1)! · J_{2n+1}(at), J_k(s) = ∫0^1 u^k e^{−su} du, with
 *     J_k from the recurrence J_{k−1} = (e^{−s} + s J_k)/k run downwards
 *     (all terms positive: no cancellation), used when at < 2.  For at ≥ 2,
 *     ω²t² ≥ (at)² − 1 ≥ 3 and p11 ≤ 3e^{−2}, so gx = (1 − p11)/ω² is exact
 *     enough on its own scale 1/ω².
 *  2. r < −1 — underdamped, ω_d t > 1.  The phase θ = ω_d t can be 1e6 rad;
 *     a double θ would be off by 1e−10 rad, so ω_d = ω √(1 − ζ²) and θ are
 *     formed in double-double and reduced modulo 2π with a three-part 2π
 *     before cos/sin.  Here ωt > 1, so gx = (1 − p11)/ω² is fine.
 *  3. r > 1 — overdamped, qt > 1.  Real roots λ1 = −ω²/(a + q) (slow, no
 *     cancellation) and λ2 = −(a + q); every exponential has a negative
 *     argument, so nothing overflows:
 *         p12 = e^{λ1 t} (−expm1(−2qt)) / (2q),
 *         p11 = ((a + q) e^{λ1 t} + λ1 e^{λ2 t}) / (2q),
 *         p22 = (λ1 e^{λ1 t} + (a + q) e^{λ2 t}) / (2q).
 *     (2qt > 2 bounds the mild cancellation in p11 and p22 by a small factor.)
 *     gx is the divided difference [φ(λ1) − φ(λ2)]/(λ1 − λ2) of
 *     φ(λ) = expm1(λt)/λ while the slow mode is still near 1 (p11 > ½), and
 *     (1 − p11)/ω² once it has decayed.
 *
 * Errors in the exponent of a decaying exponential are harmless: a relative
 * error ε·s in e^{−s} costs at most ε·max(s e^{−s}) = ε/e of the scale.
 */
#include "sim/oscillator.h"

#include <assert.h>
#include <math.h>

enum { SERIES_TERMS = 12, J_START = 27 };

/* Reciprocals used by the series, so the hot loops multiply instead of
 * divide: INV_EVEN[k] = 1/((2k−1)(2k)), INV_ODD[k] = 1/((2k)(2k+1)),
 * INV_INT[k] = 1/k. */
static const double INV_EVEN[SERIES_TERMS] = {
    0.0, 1.0 / 2, 1.0 / 12, 1.0 / 30, 1.0 / 56, 1.0 / 90, 1.0 / 132,
    1.0 / 182, 1.0 / 240, 1.0 / 306, 1.0 / 380, 1.0 / 462};
static const double INV_ODD[SERIES_TERMS] = {
    0.0, 1.0 / 6, 1.0 / 20, 1.0 / 42, 1.0 / 72, 1.0 / 110, 1.0 / 156,
    1.0 / 210, 1.0 / 272, 1.0 / 342, 1.0 / 420, 1.0 / 506};
static const double INV_INT[J_START + 1] = {
    0.0, 1.0 / 1, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7, 1.0 / 8, 1.0 / 9,
    1.0 / 10, 1.0 / 11, 1.0 / 12, 1.0 / 13, 1.0 / 14, 1.0 / 15, 1.0 / 16, 1.0 / 17,
    1.0 / 18, 1.0 / 19, 1.0 / 20, 1.0 / 21, 1.0 / 22, 1.0 / 23, 1.0 / 24, 1.0 / 25,
    1.0 / 26, 1.0 / 27};

/* ---- double-double helpers (exact transformations; no FMA contraction is
 * needed because fma() is called explicitly) ------------------------------ */
typedef struct Dd { double hi, lo; } Dd;

static Dd dd_two_sum(double a, double b)
{
    double s = a + b;
    double bb = s - a;
    Dd r = {s, (a - (s - bb)) + (b - bb)};
    return r;
}

static Dd dd_fast(double hi, double lo)
{
    double s = hi + lo;
    Dd r = {s, lo - (s - hi)};
    return r;
}

static Dd dd_two_prod(double a, double b)
{
    double p = a * b;
    Dd r = {p, fma(a, b, -p)};
    return r;
}

/* x·d for double-double x and double d. */
static Dd dd_mul_d(Dd x, double d)
{
    Dd p = dd_two_prod(x.hi, d);
    return dd_fast(p.hi, p.lo + x.lo * d);
}

/* √x for x > 0 in double-double: one Newton correction on the double root. */
static Dd dd_sqrt(Dd x)
{
    double s = sqrt(x.hi);
    Dd ss = dd_two_prod(s, s);
    double corr = ((x.hi - ss.hi) - ss.lo + x.lo) / (2.0 * s);
    return dd_fast(s, corr);
}

/* cos θ and sin θ for θ = th.hi + th.lo ≥ 0 given in double-double:
 * subtract k·2π with 2π split in three doubles (k·C1 exact by two_prod,
 * th.hi − k·C1 exact by Sterbenz), then first-order in the tiny tail. */
static void dd_cos_sin(Dd th, double *c, double *s)
{
    static const double C1 = 6.283185307179586;
    static const double C2 = 2.4492935982947064e-16;
    static const double C3 = -5.989539619436679e-33;
    double k = nearbyint(th.hi / C1);
    Dd p = dd_two_prod(k, C1);
    double head = th.hi - p.hi;
    double tail = ((th.lo - p.lo) - k * C2) - k * C3;
    Dd r = dd_two_sum(head, tail);
    double cr = cos(r.hi), sr = sin(r.hi);
    *c = cr - sr * r.lo;
    *s = sr + cr * r.lo;
}

/* ---- regime 1: series in r = q²t² ---------------------------------------- */

/* C = Σ r^k/(2k)! and Ŝ = Σ r^k/(2k+1)! (so S = t Ŝ), Horner from the top. */
static void series_cs(double r, double *cc, double *ss)
{
    double c = 1.0, s = 1.0;
    for (int k = SERIES_TERMS - 1; k >= 1; k--) {
        c = 1.0 + c * r * INV_EVEN[k];
        s = 1.0 + s * r * INV_ODD[k];
    }
    *cc = c;
    *ss = s;
}

/* Σ_{n<SERIES_TERMS} r^n/(2n+1)! · J_{2n+1}(s) for 0 ≤ s < 2, |r| ≤ 1. */
static double series_forcing(double r, double s)
{
    /* J_k(s) = ∫0^1 u^k e^{−su} du obeys J_{k−1} = (e^{−s} + s J_k)/k; two
     * steps at once keep only odd k (the ones used) and halve the chain:
     *     J_{k−2} = [e^{−s} (1 + s/k) + s² J_k / k] / (k − 1).
     * Start from the crude J_N ≈ e^{−s}/(N+1) at odd N (relative error
     * < s/(N+1) < 0.08); each double step shrinks it by s²/(k(k−1)), so it
     * is below 0.08·2^26/27! ≈ 5e-22 by J_1 and negligible at every J_{2n+1}
     * once weighted by r^n/(2n+1)!. */
    double es = exp(-s), s2 = s * s;
    double jodd[SERIES_TERMS];
    double j = es / (J_START + 1.0);
    for (int k = J_START; k >= 3; k -= 2) {
        j = (es * (1.0 + s * INV_INT[k]) + s2 * j * INV_INT[k]) * INV_INT[k - 1]; /* J_{k-2} */
        if ((k - 2) / 2 < SERIES_TERMS) jodd[(k - 2) / 2] = j;
    }
    double coef[SERIES_TERMS];
    coef[0] = 1.0;
    for (int n = 1; n < SERIES_TERMS; n++)
        coef[n] = coef[n - 1] * r * INV_ODD[n];
    double sum = 0.0;
    for (int n = SERIES_TERMS - 1; n >= 0; n--) sum += coef[n] * jodd[n];
    return sum;
}

static WbOscCoef coef_series(double w2, double a, double r, double t)
{
    double c, sh;
    series_cs(r, &c, &sh);
    double s = a * t;
    double e = exp(-s);
    WbOscCoef k;
    k.p12 = e * (t * sh);
    k.p11 = e * (c + s * sh);
    k.p22 = e * (c - s * sh);
    k.p21 = -w2 * k.p12;
    k.gv = k.p12;
    k.gx = s < 2.0 ? t * t * series_forcing(r, s) : (1.0 - k.p11) / w2;
    return k;
}

/* ---- regime 2: underdamped, ω_d t > 1 ------------------------------------ */
static WbOscCoef coef_under(double omega, double zeta, double t)
{
    double w2 = omega * omega, a = zeta * omega;
    Dd z2 = dd_two_prod(zeta, zeta);
    Dd om = dd_two_sum(1.0, -z2.hi); /* 1 − ζ², still to subtract z2.lo */
    om = dd_fast(om.hi, om.lo - z2.lo);
    Dd wd = dd_mul_d(dd_sqrt(om), omega);
    Dd th = dd_mul_d(wd, t);
    double c, sn;
    dd_cos_sin(th, &c, &sn);
    double e = exp(-a * t);
    double sd = sn / wd.hi; /* S = sin(ω_d t)/ω_d */
    WbOscCoef k;
    k.p12 = e * sd;
    k.p11 = e * (c + a * sd);
    k.p22 = e * (c - a * sd);
    k.p21 = -w2 * k.p12;
    k.gv = k.p12;
    k.gx = (1.0 - k.p11) / w2;
    return k;
}

/* ---- regime 3: overdamped, qt > 1 ---------------------------------------- */
static double phi(double lam, double t)
{
    return lam == 0.0 ? t : expm1(lam * t) / lam;
}

static WbOscCoef coef_over(double omega, double zeta, double t)
{
    double w2 = omega * omega, a = zeta * omega;
    double q = omega * sqrt((zeta - 1.0) * (zeta + 1.0));
    double apq = a + q;
    double l1 = -w2 / apq, l2 = -apq;
    double e1 = exp(l1 * t), e2 = exp(l2 * t);
    double inv2q = 1.0 / (2.0 * q);
    WbOscCoef k;
    k.p12 = e1 * -expm1(-2.0 * q * t) * inv2q;
    k.p11 = (apq * e1 + l1 * e2) * inv2q;
    k.p22 = (l1 * e1 + apq * e2) * inv2q;
    k.p21 = -w2 * k.p12;
    k.gv = k.p12;
    k.gx = k.p11 > 0.5 ? (phi(l1, t) - phi(l2, t)) * inv2q : (1.0 - k.p11) / w2;
    return k;
}

WbOscCoef wb_osc_coef(double omega, double zeta, double dt)
{
    assert(isfinite(omega) && omega >= 0.0);
    assert(isfinite(zeta) && zeta >= 0.0);
    assert(isfinite(dt) && dt >= 0.0);
    if (dt == 0.0) {
        WbOscCoef id = {1.0, 0.0, 0.0, 1.0, 0.0, 0.0};
        return id;
    }
    double w2 = omega * omega;
    double q2 = (zeta - 1.0) * (zeta + 1.0) * w2;
    double r = q2 * dt * dt;
    if (fabs(r) <= 1.0) return coef_series(w2, zeta * omega, r, dt);
    if (r < 0.0) return coef_under(omega, zeta, dt);
    return coef_over(omega, zeta, dt);
}

void wb_osc_step(double *x, double *v, double omega, double zeta, double f, double dt)
{
    WbOscCoef c = wb_osc_coef(omega, zeta, dt);
    wb_osc_apply(&c, x, v, f);
}

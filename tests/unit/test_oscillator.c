/* test_oscillator.c — the exact step against an independent 113-bit
 * reference, plus the invariants of the exact solution.
 *
 * The reference is the textbook solution switched on ζ (underdamped cos/sin,
 * critical, overdamped with the naive roots −a ± q), evaluated in __float128
 * with its own exp/sin/cos/sqrt below.  Those formulas cancel near ζ = 1 and
 * for huge ζ, but 113 bits leave enough: the worst grid point (ζ = 1 + 1e-9,
 * ω = 0.1, dt = 1e-7, pure forcing) shows 1e-14, and that is the reference's
 * own cancellation (|c1|, |c2| ~ 1e4 summing to 5e-17), still 100× inside
 * the 1e-12 asserted.  Errors are measured against the scale of
 * the state a step can produce:
 *     sx = |x0| + |v0| min(dt, 1/ω) + |f| min(dt²/2, 1/ω²)
 *     sv = |x0| ω min(1, ω dt) + |v0| + |f| min(dt, 1/ω)
 * (stricter than |x0| + |v0|/ω + |f|/ω² whenever ω dt < 1).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "sim/oscillator.h"
#include "sim/rng.h"

__extension__ typedef __float128 quad;

/* ---- 113-bit elementary functions (only + − × ÷ come from libgcc) ------- */
static const double LN2[3] = {0.6931471805599453, 2.3190468138462996e-17, 5.707708438416212e-34};
static const double PIO2[3] = {1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33};

static quad q_const(const double p[3]) { return ((quad)p[2] + (quad)p[1]) + (quad)p[0]; }

static quad q_round(quad x)
{
    double d = (double)x; /* |x| < 2^53 here: the double's integer part is exact enough */
    double k = nearbyint(d);
    quad r = x - (quad)k;
    if (r > (quad)0.5) k += 1.0;
    if (r < (quad)-0.5) k -= 1.0;
    return (quad)k;
}

static quad q_exp(quad x)
{
    if (x < (quad)-11000) return 0;
    quad ln2 = q_const(LN2);
    quad k = q_round(x / ln2);
    quad r = x - k * ln2;
    quad term = 1, sum = 1;
    for (int n = 1; n < 40; n++) {
        term = term * r / n;
        sum += term;
    }
    long e = (long)(double)k;
    quad p = e >= 0 ? 2 : (quad)0.5;
    long m = labs(e);
    while (m) {
        if (m & 1) sum *= p;
        p *= p;
        m >>= 1;
    }
    return sum;
}

static void q_cos_sin(quad x, quad *c, quad *s)
{
    quad pio2 = q_const(PIO2);
    quad k = q_round(x / pio2);
    quad r = x - k * pio2;
    quad r2 = r * r, tc = 1, ts = r, sc = 1, ssum = r;
    for (int n = 1; n < 30; n++) {
        tc = -tc * r2 / ((2 * n - 1) * (2 * n));
        ts = -ts * r2 / ((2 * n) * (2 * n + 1));
        sc += tc;
        ssum += ts;
    }
    long quadrant = ((long)(double)k % 4 + 4) % 4;
    switch (quadrant) {
    case 0: *c = sc; *s = ssum; break;
    case 1: *c = -ssum; *s = sc; break;
    case 2: *c = -sc; *s = -ssum; break;
    default: *c = ssum; *s = -sc; break;
    }
}

static quad q_sqrt(quad x)
{
    if (x == 0) return 0;
    quad y = sqrt((double)x);
    for (int i = 0; i < 3; i++) y = (y + x / y) / 2;
    return y;
}

/* Textbook exact solution in 113 bits. */
static void ref_step(double x0d, double v0d, double omd, double zd, double fd, double td,
                     quad *xo, quad *vo)
{
    quad x0 = x0d, v0 = v0d, om = omd, z = zd, f = fd, t = td;
    if (omd == 0.0) {
        *xo = x0 + v0 * t + f * t * t / 2;
        *vo = v0 + f * t;
        return;
    }
    quad w2 = om * om, a = z * om, xe = f / w2, y0 = x0 - xe, y, v;
    if (zd < 1.0) {
        quad wd = om * q_sqrt(1 - z * z), c, s;
        q_cos_sin(wd * t, &c, &s);
        quad e = q_exp(-a * t);
        y = e * (y0 * c + (v0 + a * y0) / wd * s);
        v = e * (v0 * c - (w2 * y0 + a * v0) / wd * s);
    } else if (zd == 1.0) {
        quad e = q_exp(-a * t);
        y = e * (y0 + (v0 + a * y0) * t);
        v = e * (v0 - (w2 * y0 + a * v0) * t);
    } else {
        quad q = om * q_sqrt(z * z - 1), l1 = -a + q, l2 = -a - q;
        quad c1 = (v0 - l2 * y0) / (l1 - l2), c2 = (l1 * y0 - v0) / (l1 - l2);
        quad e1 = q_exp(l1 * t), e2 = q_exp(l2 * t);
        y = c1 * e1 + c2 * e2;
        v = c1 * l1 * e1 + c2 * l2 * e2;
    }
    *xo = y + xe;
    *vo = v;
}

static double scale_x(double x0, double v0, double om, double f, double t)
{
    double inv = om > 0 ? 1.0 / om : INFINITY;
    return fabs(x0) + fabs(v0) * fmin(t, inv) + fabs(f) * fmin(t * t / 2, inv * inv);
}

static double scale_v(double x0, double v0, double om, double f, double t)
{
    double inv = om > 0 ? 1.0 / om : INFINITY;
    return fabs(x0) * om * fmin(1.0, om * t) + fabs(v0) + fabs(f) * fmin(t, inv);
}

static const double ZETAS[] = {0.0, 1e-6, 0.14, 0.5, 1.0 - 1e-9, 1.0, 1.0 + 1e-9, 1.7, 10.0, 1e3, 1e6};
static const double DTS[] = {1e-7, 1e-5, 1e-3, 1.0 / 240, 1.0 / 60, 0.1, 1.0, 10.0, 100.0, 1000.0};
static const double OMEGAS[] = {0.1, 1.0, 11.938052083641214, 100.0, 1000.0};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Initial states, in units natural to ω so every term matters. */
static void state_for(int which, double om, double *x0, double *v0, double *f)
{
    static const double S[][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.3, -2.0, 5.0}, {-1.5, 0.25, -0.75}};
    *x0 = S[which][0];
    *v0 = S[which][1] * om;
    *f = S[which][2] * om * om;
}

Test(oscillator, matches_quad_reference_over_grid)
{
    double worst = 0.0;
    for (size_t iz = 0; iz < N_OF(ZETAS); iz++)
        for (size_t it = 0; it < N_OF(DTS); it++)
            for (size_t iw = 0; iw < N_OF(OMEGAS); iw++)
                for (int st = 0; st < 5; st++) {
                    double z = ZETAS[iz], t = DTS[it], om = OMEGAS[iw], x0, v0, f;
                    state_for(st, om, &x0, &v0, &f);
                    double x = x0, v = v0;
                    wb_osc_step(&x, &v, om, z, f, t);
                    quad xr, vr;
                    ref_step(x0, v0, om, z, f, t, &xr, &vr);
                    double ex = (double)((quad)x - xr) / scale_x(x0, v0, om, f, t);
                    double ev = (double)((quad)v - vr) / scale_v(x0, v0, om, f, t);
                    double e = fmax(fabs(ex), fabs(ev));
                    worst = fmax(worst, e);
                    cr_expect(e <= 1e-12, "zeta=%.17g dt=%.17g omega=%.17g state=%d: ex=%.3g ev=%.3g "
                              "x=%.17g ref=%.17g v=%.17g ref=%.17g", z, t, om, st, ex, ev, x,
                              (double)xr, v, (double)vr);
                }
    cr_log_info("oscillator: worst scaled error over the grid %.3g", worst);
}

Test(oscillator, free_particle_at_zero_omega)
{
    for (size_t iz = 0; iz < N_OF(ZETAS); iz++)
        for (size_t it = 0; it < N_OF(DTS); it++) {
            double t = DTS[it], x = 0.5, v = -1.25, f = 3.0;
            wb_osc_step(&x, &v, 0.0, ZETAS[iz], f, t);
            double xe = 0.5 - 1.25 * t + 1.5 * t * t, ve = -1.25 + 3.0 * t;
            cr_expect(fabs(x - xe) <= 1e-15 * (0.5 + 1.25 * t + 1.5 * t * t), "dt=%g x=%.17g", t, x);
            cr_expect(fabs(v - ve) <= 1e-15 * (1.25 + 3.0 * t), "dt=%g v=%.17g", t, v);
        }
}

Test(oscillator, zero_dt_is_identity)
{
    double x = 0.7, v = -3.0;
    wb_osc_step(&x, &v, 12.0, 0.3, 100.0, 0.0);
    cr_assert_eq(x, 0.7);
    cr_assert_eq(v, -3.0);
}

Test(oscillator, equilibrium_is_a_fixed_point)
{
    for (size_t iz = 0; iz < N_OF(ZETAS); iz++)
        for (size_t it = 0; it < N_OF(DTS); it++)
            for (size_t iw = 0; iw < N_OF(OMEGAS); iw++) {
                double om = OMEGAS[iw], f = -2.7 * om * om * 0.37;
                double xe = f / (om * om), x = xe, v = 0.0;
                wb_osc_step(&x, &v, om, ZETAS[iz], f, DTS[it]);
                cr_expect(fabs(x - xe) <= 1e-14 * fabs(xe), "zeta=%g dt=%g om=%g x=%.17g xe=%.17g",
                          ZETAS[iz], DTS[it], om, x, xe);
                cr_expect(fabs(v) <= 1e-14 * fabs(xe) * om, "zeta=%g dt=%g om=%g v=%.17g",
                          ZETAS[iz], DTS[it], om, v);
            }
}

static double energy(double x, double v, double om) { return 0.5 * v * v + 0.5 * om * om * x * x; }

Test(oscillator, energy_never_grows_without_forcing)
{
    for (size_t iz = 0; iz < N_OF(ZETAS); iz++)
        for (size_t it = 0; it < N_OF(DTS); it++)
            for (size_t iw = 0; iw < N_OF(OMEGAS); iw++)
                for (int st = 0; st < 5; st++) {
                    double om = OMEGAS[iw], x, v, f;
                    state_for(st, om, &x, &v, &f);
                    double e0 = energy(x, v, om);
                    if (e0 == 0.0) continue;
                    wb_osc_step(&x, &v, om, ZETAS[iz], 0.0, DTS[it]);
                    double e1 = energy(x, v, om);
                    cr_expect(e1 <= e0 * (1.0 + 1e-14), "zeta=%g dt=%g om=%g: E %.17g -> %.17g",
                              ZETAS[iz], DTS[it], om, e0, e1);
                }
    /* Long undamped run: the step must not pump energy in. */
    double x = 1.0, v = 0.0, om = 2.0 * M_PI * 1.9;
    double e0 = energy(x, v, om);
    for (int i = 0; i < 100000; i++) wb_osc_step(&x, &v, om, 0.0, 0.0, 1.0 / 60.0);
    cr_expect(fabs(energy(x, v, om) - e0) <= 1e-11 * e0, "E drifted to %.17g from %.17g",
              energy(x, v, om), e0);
}

Test(oscillator, one_step_equals_two_half_steps)
{
    for (size_t iz = 0; iz < N_OF(ZETAS); iz++)
        for (size_t it = 0; it < N_OF(DTS); it++)
            for (size_t iw = 0; iw < N_OF(OMEGAS); iw++)
                for (int st = 0; st < 5; st++) {
                    double z = ZETAS[iz], t = DTS[it], om = OMEGAS[iw], x0, v0, f;
                    state_for(st, om, &x0, &v0, &f);
                    double x1 = x0, v1 = v0, x2 = x0, v2 = v0;
                    wb_osc_step(&x1, &v1, om, z, f, t);
                    wb_osc_step(&x2, &v2, om, z, f, t / 2);
                    wb_osc_step(&x2, &v2, om, z, f, t / 2);
                    double ex = fabs(x1 - x2) / scale_x(x0, v0, om, f, t);
                    double ev = fabs(v1 - v2) / scale_v(x0, v0, om, f, t);
                    cr_expect(ex <= 1e-12 && ev <= 1e-12, "zeta=%g dt=%g om=%g st=%d: %.3g %.3g",
                              z, t, om, st, ex, ev);
                }
}

/* Piecewise-constant forcing changing every step, against the reference
 * stepped the same way in 113 bits (the reference keeps its own state in
 * quad, so only our round-off accumulates). */
Test(oscillator, trajectories_with_changing_forcing)
{
    static const double Z[] = {0.0, 1e-6, 0.14, 1.0, 1.0 + 1e-9, 1.7, 1e3};
    for (size_t iz = 0; iz < N_OF(Z); iz++) {
        double om = 2.0 * M_PI * 1.9, dt = 1.0 / 60.0;
        double x = 0.1, v = 0.0, peak = 0.1;
        quad xq = 0.1, vq = 0.0;
        for (int k = 0; k < 1200; k++) {
            double f = 40.0 * sin(0.05 * k) + (k % 97 == 0 ? 300.0 : 0.0) - 2.7;
            wb_osc_step(&x, &v, om, Z[iz], f, dt);
            quad xn, vn;
            ref_step((double)xq, (double)vq, om, Z[iz], f, dt, &xn, &vn);
            /* Re-inject the reference's low bits: ref_step takes doubles, so
             * carry the quad correction of its input across the step. */
            quad dx = xq - (quad)(double)xq, dv = vq - (quad)(double)vq;
            WbOscCoef c = wb_osc_coef(om, Z[iz], dt);
            xn += (quad)c.p11 * dx + (quad)c.p12 * dv;
            vn += (quad)c.p21 * dx + (quad)c.p22 * dv;
            xq = xn;
            vq = vn;
            peak = fmax(peak, fabs((double)xq));
            double ex = fabs((double)((quad)x - xq));
            cr_assert(ex <= 1e-12 * peak, "zeta=%g step %d: x=%.17g ref=%.17g", Z[iz], k, x, (double)xq);
            cr_assert(fabs((double)((quad)v - vq)) <= 1e-12 * peak * om, "zeta=%g step %d v", Z[iz], k);
        }
    }
}

static double scaled_error(double x0, double v0, double om, double z, double f, double t)
{
    double x = x0, v = v0;
    wb_osc_step(&x, &v, om, z, f, t);
    quad xr, vr;
    ref_step(x0, v0, om, z, f, t, &xr, &vr);
    double ex = fabs((double)((quad)x - xr)) / scale_x(x0, v0, om, f, t);
    double ev = fabs((double)((quad)v - vr)) / scale_v(x0, v0, om, f, t);
    return fmax(ex, ev);
}

/* The evaluation switches regime at |q²dt²| = 1: both sides must agree with
 * the reference, so the switch is invisible. */
Test(oscillator, regime_boundaries_are_seamless)
{
    static const double Z[] = {0.0, 0.3, 0.9, 1.0 - 1e-6, 1.0 + 1e-6, 1.2, 3.0, 1e3};
    static const double OM[] = {0.5, 10.0, 700.0};
    for (size_t iz = 0; iz < N_OF(Z); iz++)
        for (size_t iw = 0; iw < N_OF(OM); iw++) {
            double q = OM[iw] * sqrt(fabs((Z[iz] - 1.0) * (Z[iz] + 1.0)));
            for (int side = -1; side <= 1; side += 2)
                for (int st = 0; st < 5; st++) {
                    double t = (1.0 + side * 1e-12) / q, x0, v0, f;
                    state_for(st, OM[iw], &x0, &v0, &f);
                    double e = scaled_error(x0, v0, OM[iw], Z[iz], f, t);
                    cr_expect(e <= 1e-12, "zeta=%g om=%g dt=%.17g state %d: %.3g", Z[iz], OM[iw], t, st, e);
                }
        }
}

/* Random (ζ, ω, dt, state) over the whole specified range and beyond:
 * ζ log-uniform in [1e-8, 1e6] (a quarter of the draws within 1e-6 of 1),
 * ω in [1e-2, 1e4] rad/s, dt in [1e-8, 1e4] s. */
Test(oscillator, random_parameters_match_reference)
{
    WbRng r = wb_rng_seed(2024);
    double worst = 0.0;
    for (int i = 0; i < 4000; i++) {
        double z = i % 4 == 0 ? 1.0 + wb_rng_range(&r, -1e-6, 1e-6) : pow(10.0, wb_rng_range(&r, -8.0, 6.0));
        double om = pow(10.0, wb_rng_range(&r, -2.0, 4.0));
        double t = pow(10.0, wb_rng_range(&r, -8.0, 4.0));
        double x0 = wb_rng_range(&r, -1.0, 1.0), v0 = wb_rng_range(&r, -1.0, 1.0) * om;
        double f = wb_rng_range(&r, -1.0, 1.0) * om * om;
        double e = scaled_error(x0, v0, om, z, f, t);
        worst = fmax(worst, e);
        cr_expect(e <= 1e-12, "zeta=%.17g om=%.17g dt=%.17g: %.3g", z, om, t, e);
    }
    cr_log_info("oscillator: worst scaled error over random draws %.3g", worst);
}

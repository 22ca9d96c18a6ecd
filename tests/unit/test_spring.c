/* test_spring.c — spring coefficients against closed forms. */
#include <criterion/criterion.h>
#include <math.h>

#include "sim/spring.h"

/* Reference propagator from the textbook formulas (no care for cancellation;
 * used only away from ζ = 1). */
static void reference(double k, double z, double t, double p[4])
{
    double w = sqrt(k), s = z * w;
    if (z < 1) {
        double wd = w * sqrt(1 - z * z), e = exp(-s * t);
        double c = cos(wd * t), sn = sin(wd * t);
        p[0] = e * (c + s / wd * sn);
        p[1] = e * sn / wd;
        p[2] = -e * k / wd * sn;
        p[3] = e * (c - s / wd * sn);
    } else {
        double mu = w * sqrt(z * z - 1), r1 = -s + mu, r2 = -s - mu;
        double e1 = exp(r1 * t), e2 = exp(r2 * t);
        /* d(t) = A e^{r1 t} + B e^{r2 t} for (d0, v0) = (1, 0) and (0, 1) */
        p[0] = (r1 * e2 - r2 * e1) / (r1 - r2);
        p[1] = (e1 - e2) / (r1 - r2);
        p[2] = r1 * r2 * (e2 - e1) / (r1 - r2);
        p[3] = (r1 * e1 - r2 * e2) / (r1 - r2);
    }
}

static void expect_close(const double a[4], const double b[4], double tol)
{
    for (int i = 0; i < 4; i++)
        cr_expect(fabs(a[i] - b[i]) <= tol * (1 + fabs(b[i])), "entry %d: %.17g vs %.17g", i,
                  a[i], b[i]);
}

Test(spring, k_and_c_from_frequency_and_ratio)
{
    double k = wb_spring_k(2.0, 1.0);
    cr_expect(fabs(k - 2.0 * pow(4 * M_PI, 2)) < 1e-9);
    cr_expect(fabs(wb_spring_k(2.0, -1.0) - 0.5 * pow(4 * M_PI, 2)) < 1e-9);
    cr_expect(fabs(wb_spring_c(100.0, 0.3) - 6.0) < 1e-12);
}

Test(spring, exact_matches_closed_form_under_and_over_damped)
{
    const double zs[] = {0.0, 0.16, 0.3, 0.7, 1.5, 3.0, 20.0};
    const double dts[] = {1.0 / 240, 1.0 / 60, 0.1, 1.0};
    for (size_t a = 0; a < sizeof zs / sizeof zs[0]; a++)
        for (size_t b = 0; b < sizeof dts / sizeof dts[0]; b++) {
            double p[4], r[4];
            wb_spring_exact(250.0, zs[a], dts[b], p);
            reference(250.0, zs[a], dts[b], r);
            expect_close(p, r, 1e-11);
        }
}

Test(spring, exact_is_continuous_through_critical_damping)
{
    /* At ζ = 1: d(t) = e^{-ωt}((1 + ωt) d0 + t v0). */
    double k = 400.0, w = 20.0, t = 0.05, e = exp(-w * t);
    double crit[4] = {e * (1 + w * t), e * t, -k * e * t, e * (1 - w * t)};
    const double zs[] = {1.0, 1.0 - 1e-12, 1.0 + 1e-12, 1.0 - 1e-7, 1.0 + 1e-7};
    for (size_t i = 0; i < sizeof zs / sizeof zs[0]; i++) {
        double p[4];
        wb_spring_exact(k, zs[i], t, p);
        /* The map moves by O(ε) when ζ moves by ε: no 1/√ε blow-up. */
        expect_close(p, crit, 10 * fabs(1 - zs[i]) + 1e-14);
    }
}

Test(spring, exact_composes_as_a_semigroup)
{
    const double zs[] = {0.2, 0.999999, 1.0, 1.000001, 4.0};
    for (size_t i = 0; i < sizeof zs / sizeof zs[0]; i++) {
        double a[4], b[4];
        wb_spring_exact(150.0, zs[i], 0.01, a);
        wb_spring_exact(150.0, zs[i], 0.02, b);
        double sq[4] = {a[0] * a[0] + a[1] * a[2], a[0] * a[1] + a[1] * a[3],
                        a[2] * a[0] + a[3] * a[2], a[2] * a[1] + a[3] * a[3]};
        expect_close(sq, b, 1e-13);
    }
}

Test(spring, exact_never_grows_energy_at_any_step)
{
    const double zs[] = {0.0, 0.16, 0.5, 1.0, 2.0};
    const double dts[] = {1.0 / 240, 0.5, 1.0, 10.0};
    for (size_t a = 0; a < sizeof zs / sizeof zs[0]; a++)
        for (size_t b = 0; b < sizeof dts / sizeof dts[0]; b++) {
            double p[4], k = 1000.0;
            wb_spring_exact(k, zs[a], dts[b], p);
            double d = 1, v = 3, e0 = k * d * d + v * v;
            for (int n = 0; n < 200; n++) {
                double d1 = p[0] * d + p[1] * v, v1 = p[2] * d + p[3] * v;
                d = d1;
                v = v1;
                double e1 = k * d * d + v * v;
                cr_assert(e1 <= e0 * (1 + 1e-12), "ζ %g dt %g step %d: %g > %g", zs[a], dts[b], n,
                          e1, e0);
                e0 = e1;
            }
        }
}

Test(spring, euler_growth_marks_the_stability_limit)
{
    double p[4];
    wb_spring_euler(wb_spring_k(2.5, 1.0), 0.16, 1.0 / 240, p);
    cr_expect(wb_spring_growth(p) <= 1.0);
    wb_spring_euler(400.0, 0.0, 1.0 / 5, p); /* ω dt = 4 > 2: unstable */
    cr_expect(wb_spring_growth(p) > 1.0);
    /* Undamped Euler is exactly on the unit circle while ω dt < 2. */
    wb_spring_euler(400.0, 0.0, 1.0 / 20, p);
    cr_expect(fabs(wb_spring_growth(p) - 1.0) < 1e-12);
}

/* presets.c — measuring a spring's feel and fitting presets to it.
 *
 * The rules are stated in presets.h.  The measurement runs the real photo
 * step (float32, the same kernels a scene runs) on a one-vertex state, so
 * the table describes what a render shows, integration error included.
 */
#include "sim/presets.h"

#include <math.h>
#include <string.h>

#include "sim/photo.h"

static const WbPhotoPreset presets[] = {
    {"spring", {0.40, 6, 1.38}},
    {"rubber", {0.51, 2, 0.80}},
    {"jelly", {0.63, 5, 1.87}},
};

const WbPhotoPreset *wb_photo_presets(size_t *n)
{
    *n = sizeof presets / sizeof presets[0];
    return presets;
}

/* Lanes of the one-vertex state: the step kernels work in blocks of 16. */
#define LANES 16

void wb_preset_measure(double k, double zeta, double rate, WbSpringIntegrator integrator,
                       WbPresetRow *out)
{
    _Alignas(64) float x[LANES] = {1.0f}, y[LANES] = {0}, vx[LANES] = {0}, vy[LANES] = {0};
    _Alignas(64) float rx[LANES] = {0}, ry[LANES] = {0};
    WbPhotoState s = {.grid = 0, .n = 1, .x = x, .y = y, .vx = vx, .vy = vy, .rx = rx, .ry = ry};
    WbPhotoStep c;
    double dt = 1.0 / rate;
    wb_photo_step_coef(&c, k, zeta, dt, integrator);

    const double ps = WB_PRESET_SETTLE_FRACTION, pc = WB_PRESET_COUNT_FRACTION;
    double cross[3];
    int n_cross = 0, n_osc = 0;
    double settle = 0.0;
    double xp = 1.0, vp = 0.0, ap = 1.0;
    /* Up to ten minutes of simulated time; a spring this slow is no preset. */
    int64_t max_steps = (int64_t)(600.0 * rate);
    for (int64_t n = 1; n <= max_steps; n++) {
        wb_photo_step(&s, &c, 0.0f, 0.0f);
        double xn = x[0], vn = vx[0];
        double an = sqrt(xn * xn + vn * vn / k);
        if ((xp > 0) != (xn > 0) && n_cross < 3)
            cross[n_cross++] = ((double)(n - 1) + xp / (xp - xn)) * dt;
        /* Turning point between the two samples: the larger of them. */
        if ((vp > 0 && vn <= 0) || (vp < 0 && vn >= 0))
            if (fmax(fabs(xp), fabs(xn)) > pc)
                n_osc++;
        if (ap > ps && an <= ps)
            settle = ((double)(n - 1) + (ap - ps) / (ap - an)) * dt;
        xp = xn;
        vp = vn;
        ap = an;
        /* Done once well below the threshold (the discrete energy ripples by
         * O(ω dt), far less than a factor 2) and the period is known. */
        if (an < 0.5 * ps && (n_cross == 3 || an < 1e-20))
            break;
    }
    out->period = n_cross == 3 ? cross[2] - cross[0] : 0.0;
    out->oscillations = n_osc;
    out->settle = settle;
}

int wb_preset_trajectory(double k, double zeta, double rate, WbSpringIntegrator integrator,
                         double duration, double *t, double *x, int max)
{
    _Alignas(64) float px[LANES] = {1.0f}, py[LANES] = {0}, vx[LANES] = {0}, vy[LANES] = {0};
    _Alignas(64) float rx[LANES] = {0}, ry[LANES] = {0};
    WbPhotoState s = {.grid = 0, .n = 1, .x = px, .y = py, .vx = vx, .vy = vy, .rx = rx, .ry = ry};
    WbPhotoStep c;
    double dt = 1.0 / rate;
    wb_photo_step_coef(&c, k, zeta, dt, integrator);
    /* Whole steps up to `duration` (t = n/rate is exact at whole seconds). */
    double steps = floor(duration * rate + 1e-9);
    int last = steps < (double)(max - 1) ? (int)steps : max - 1;
    t[0] = 0.0;
    x[0] = px[0];
    for (int n = 1; n <= last; n++) {
        wb_photo_step(&s, &c, 0.0f, 0.0f);
        t[n] = (double)n / rate;
        x[n] = px[0];
    }
    return last + 1;
}

/* k giving the wanted period at this ζ: the period falls as k grows. */
static double fit_k(double period, double zeta, double rate, WbSpringIntegrator integrator)
{
    double lo = log(1e-2), hi = log(1e6); /* ln k */
    for (int i = 0; i < 60; i++) {
        double mid = 0.5 * (lo + hi);
        WbPresetRow r;
        wb_preset_measure(exp(mid), zeta, rate, integrator, &r);
        if (r.period == 0.0 || r.period < period)
            hi = mid; /* too stiff, or never swung (a slower spring will) */
        else
            lo = mid;
    }
    return exp(0.5 * (lo + hi));
}

bool wb_preset_fit(double period, double settle, double rate, WbSpringIntegrator integrator,
                   double *k, double *zeta)
{
    double zl = 0.01, zh = 0.85;
    WbPresetRow r;
    /* Reachable only if the settle time is bracketed by the ζ range. */
    double kl = fit_k(period, zl, rate, integrator);
    wb_preset_measure(kl, zl, rate, integrator, &r);
    if (!(r.settle >= settle))
        return false;
    double kh = fit_k(period, zh, rate, integrator);
    wb_preset_measure(kh, zh, rate, integrator, &r);
    if (!(r.period > 0 && r.settle <= settle))
        return false;
    for (int i = 0; i < 48; i++) {
        double zm = 0.5 * (zl + zh);
        double km = fit_k(period, zm, rate, integrator);
        wb_preset_measure(km, zm, rate, integrator, &r);
        if (r.settle > settle)
            zl = zm;
        else
            zh = zm;
    }
    *zeta = 0.5 * (zl + zh);
    *k = fit_k(period, *zeta, rate, integrator);
    return true;
}

bool wb_photo_preset_values(const WbPhotoPreset *preset, double *frequency, double *zeta)
{
    double k, z;
    if (!wb_preset_fit(preset->target.period, preset->target.settle, WB_PRESET_RATE,
                       WB_PRESET_INTEGRATOR, &k, &z))
        return false;
    *frequency = sqrt(k) / (2.0 * M_PI);
    *zeta = z;
    return true;
}

/* presets.h — the photo presets (Spring, Rubber, Jelly) and the rules that
 * measure a spring's feel, so `wobble presets photo` regenerates the table
 * from the engine instead of quoting it (SPEC 4.1).
 *
 * The experiment: one vertex released from a pull of 1 with zero velocity,
 * integrated by the photo step itself (float32, wb_photo_step) at `rate`
 * steps per second.  Times are measured from the release, crossing times are
 * interpolated linearly between steps.
 *   period        time from the first to the third crossing of the rest
 *                 position (one full swing there and back); 0 when the vertex
 *                 crosses rest fewer than three times (ζ near or above 1).
 *   oscillations  the number of turning points (velocity changes sign) that
 *                 lie more than WB_PRESET_COUNT_FRACTION (3 %) of the pull
 *                 from rest: the swings you can see.
 *   settle        the moment the motion's amplitude √(x² + v²/k) — how far
 *                 the vertex would swing if all its energy were displacement,
 *                 the same measure the simulator's settle test uses — falls
 *                 for the last time below WB_PRESET_SETTLE_FRACTION (2 %) of
 *                 the pull.
 * Preset (k, ζ) values are not typed in: wb_photo_preset_values fits them to
 * the target rows with wb_preset_fit, Euler at WB_PRESET_RATE.
 */
#ifndef WB_PRESETS_H
#define WB_PRESETS_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/spring.h"

#define WB_PRESET_SETTLE_FRACTION 0.02 /* of the pull: "settled" amplitude */
#define WB_PRESET_COUNT_FRACTION 0.03  /* of the pull: a swing you can see */
#define WB_PRESET_RATE 240.0           /* steps/s the presets are fitted at */
#define WB_PRESET_INTEGRATOR WB_SPRING_EULER

typedef struct WbPresetRow {
    double period;    /* s */
    int oscillations; /* count */
    double settle;    /* s */
} WbPresetRow;

/* A named preset and the row it is fitted to.  The table's order is the
 * scene's (photo.preset: spring, rubber, jelly). */
typedef struct WbPhotoPreset {
    const char *name;     /* "spring", "rubber", "jelly" */
    WbPresetRow target;
} WbPhotoPreset;

/* Measure spring constant k (1/s², > 0) and damping ratio zeta (> 0) by the
 * rules above, at rate steps/s (> 0) with the given integrator. */
void wb_preset_measure(double k, double zeta, double rate, WbSpringIntegrator integrator,
                       WbPresetRow *out);

/* The same experiment as wb_preset_measure, recorded: t[i] (s) and x[i]
 * (fraction of the pull) at the release (i = 0) and after every step, for
 * at most `max` samples (≥ 1) or until t passes `duration` seconds.
 * Returns the number of samples written. */
int wb_preset_trajectory(double k, double zeta, double rate, WbSpringIntegrator integrator,
                         double duration, double *t, double *x, int max);

/* Find (k, ζ) whose measured period and settle time equal the given ones
 * (seconds) at this rate and integrator: bisection on ζ (settle falls as ζ
 * grows) around a bisection on k for the period.  Returns false when the
 * pair is out of reach (ζ would leave [0.01, 0.85]); *k, *zeta untouched. */
bool wb_preset_fit(double period, double settle, double rate, WbSpringIntegrator integrator,
                   double *k, double *zeta);

/* The preset table (targets), *n rows. */
const WbPhotoPreset *wb_photo_presets(size_t *n);

/* The fitted spring of a preset (a row of wb_photo_presets): frequency
 * f0 = √k/2π (Hz, elasticity 0) and ζ.  Runs the fit (a few ms).  False when
 * the row cannot be fitted. */
bool wb_photo_preset_values(const WbPhotoPreset *preset, double *frequency, double *zeta);

#endif

/* run_photo.h — the photo solver driven by a scene's photo block and
 * timeline: the part of the photo adapter that needs no files, so tests can
 * drive it with a def and events of their own.
 *
 * The drive turns the scene's units (normalized or pixel points, shorter-edge
 * or pixel lengths) into the solver's, and fires each event on its step
 * (timeline.h) as a solver command: grab (its cursor follows the path keys),
 * release, pin, unpin.
 */
#ifndef WB_RUN_PHOTO_H
#define WB_RUN_PHOTO_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/fields.h"
#include "scene/scene.h"
#include "sim/photo_sim.h"

typedef struct WbPhotoDrive WbPhotoDrive;

/* Build the solver for def over an img_w×img_h photo (mask_px as in
 * wb_photo_sim_create) and the timeline events[0..n) (sorted by time; they
 * must outlive the drive).
 * Errors: WB_E_INPUT for parameters out of range, an Euler step unstable at
 * this rate, more than WB_MAX_PINS pins at once, or unpinning a name never
 * pinned; WB_E_IO when out of memory. */
WbStatus wb_photo_drive_create(WbPhotoDrive **out, const WbPhotoDef *def, const WbEvent *events,
                               size_t n, int img_w, int img_h, const float *mask_px,
                               WbError *err);
void wb_photo_drive_destroy(WbPhotoDrive *d);

/* Run until `step` steps have been taken in total, firing the events due on
 * the way.  Errors as wb_photo_sim_advance. */
WbStatus wb_photo_drive_advance(WbPhotoDrive *d, int64_t step, WbError *err);

/* Save or restore the drive's state (runner.h, fields): the events fired
 * and the solver's (wb_photo_sim_fields). */
void wb_photo_drive_fields(WbPhotoDrive *d, WbFields *f);
/* wb_photo_drive_advance that looks at *stop (NULL: never) every few steps
 * and returns WB_E_INTERRUPTED when it is set. */
WbStatus wb_photo_drive_advance_until(WbPhotoDrive *d, int64_t step,
                                      const volatile sig_atomic_t *stop, WbError *err);

/* Settled, no grab active, and no event left. */
bool wb_photo_drive_idle(const WbPhotoDrive *d);

/* The solver, for its state and statistics. */
WbPhotoSim *wb_photo_drive_sim(const WbPhotoDrive *d);

#endif

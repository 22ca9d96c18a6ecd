/* photo_sim.h — the photo simulation over time: springs (photo.h) driven by
 * the scene's timeline (grab, release, pin, unpin), masks, settling.
 *
 * Clock: fixed steps of dt = 1/photo.rate; step n ends at time n·dt.  An
 * event at time t is applied at the start of the first step whose end time
 * reaches t (step ceil(t·rate)), so results never depend on the output fps
 * or on how advance() calls are split.  The settle test runs every
 * round(rate/60) steps, on absolute step numbers, for the same reason.
 *
 * Units: lengths in the image's shorter edge (the mesh spans
 * [0, W/min(W,H)] × [0, H/min(W,H)]), velocities in those units per second.
 * Scene points ([0,1]² or pixels) and lengths (shorter-edge fractions or
 * pixels) are resolved against the image size given at creation.
 *
 * Grab: the weight w_i = exp(-d²/2r²), d from the vertex's REST position to
 * the grab point, times the mask weight m_i, times (1 - p_i) under pins.  The
 * radius r is the event's, else photo.radius, else 1/6 of the shorter side
 * of the mask's bounding box (pixels with m > 0.5), else 1/6 of the image's
 * shorter edge.  The cursor starts at the grab point and follows the path
 * keys; each key's easing shapes the segment that ends at it, with u the
 * segment's time fraction:  linear u;  in u³;  out 1-(1-u)³;  in-out
 * 3u²-2u³;  step 0 until the key's time, then 1.  Each step moves the grabbed
 * vertices by Δ = cursor(t) - cursor(t - dt).  The grip lets go by itself at
 * the first step where |cursor - grab point| > photo.grip · √(k/k0)
 * (grip ≤ 0: never).  Release keeps every velocity (inertia).
 * Pins: up to WB_MAX_PINS; gaussians g of the pin radius (default half the
 * automatic grab radius), combined p = 1 - Π(1 - g).
 */
#ifndef WB_PHOTO_SIM_H
#define WB_PHOTO_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "scene/scene.h"
#include "sim/photo.h"

typedef struct WbPhotoSim WbPhotoSim;

typedef struct WbPhotoStats {
    bool moving;              /* not settled */
    double max_displacement;  /* max |x - rest| over vertices, shorter-edge units */
    double max_speed;         /* max |v|, units/s */
    double time;              /* simulated time, s */
    double settled_at;        /* time the mesh last came to rest, s; -1 while moving */
    bool grabbing;            /* a grab is active */
} WbPhotoStats;

/* Build the simulation for def and its timeline (events sorted by time; they
 * are copied, the caller keeps ownership).  img_w×img_h is the photo's size
 * in pixels; mask_px (may be NULL) holds img_w*img_h weights in [0,1], row
 * major, top row first, and is sampled bilinearly at the vertices' rest
 * positions (pixel centres at +0.5).  The mesh starts at rest.
 * Errors: WB_E_INPUT for parameters out of range, an Euler step that would
 * be unstable at this rate (the message names the rate that is needed),
 * more than WB_MAX_PINS pins at once, or unpinning a name never pinned;
 * WB_E_IO when out of memory. */
WbStatus wb_photo_sim_create(WbPhotoSim **out, const WbPhotoDef *def, const WbEvent *events,
                             size_t n_events, int img_w, int img_h, const float *mask_px,
                             WbError *err);
void wb_photo_sim_destroy(WbPhotoSim *sim);

/* Run steps until `step` steps have been taken in total (no-op if already
 * there).  Errors: WB_E_DIVERGED when a position or velocity became NaN/Inf;
 * the message names the vertex (i, j) and the time by which it happened (the
 * check runs once per call). */
WbStatus wb_photo_sim_advance(WbPhotoSim *sim, int64_t step, WbError *err);

/* The number of steps that covers time t (s): floor(t·rate + 1e-9). */
int64_t wb_photo_sim_step_at(const WbPhotoSim *sim, double t);

/* Steps taken so far, and the time they reach (s). */
int64_t wb_photo_sim_steps(const WbPhotoSim *sim);
double wb_photo_sim_time(const WbPhotoSim *sim);

/* Settled, no grab active, and no timeline event left. */
bool wb_photo_sim_idle(const WbPhotoSim *sim);

/* A counter that changes whenever positions changed: draw again only when
 * it differs from the value at the last draw. */
uint64_t wb_photo_sim_generation(const WbPhotoSim *sim);

void wb_photo_sim_stats(const WbPhotoSim *sim, WbPhotoStats *st);

/* 64-bit FNV-1a over the 32-bit words of x, y, vx, vy (in that order):
 * equal hashes, equal states, on any machine with IEEE floats. */
uint64_t wb_photo_sim_hash(const WbPhotoSim *sim);

/* The mesh, for the renderer: positions, rest and mask arrays (read only;
 * state->mask is NULL without a mask).  Valid until the next advance. */
const WbPhotoState *wb_photo_sim_state(const WbPhotoSim *sim);

/* Grab diagnostics: the automatic grab radius (shorter-edge units) the
 * radius rule gives, whether a grab is active, and the cursor position. */
double wb_photo_sim_auto_radius(const WbPhotoSim *sim);
bool wb_photo_sim_grabbing(const WbPhotoSim *sim);
void wb_photo_sim_cursor(const WbPhotoSim *sim, double *x, double *y);

/* The spring in use: k (1/s²) and the step coefficients. */
const WbPhotoStep *wb_photo_sim_coef(const WbPhotoSim *sim);

#endif

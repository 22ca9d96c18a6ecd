/* photo_sim.h — the photo simulation over time: springs (photo.h) driven by
 * commands (grab, release, pin, unpin), masks, settling.
 *
 * Clock: fixed steps of dt = 1/rate; step n ends at time n·dt.  The caller
 * gives each command between steps (run/run_photo.c fires the scene's
 * timeline that way).  The settle test runs every round(rate/60) steps, on
 * absolute step numbers, and so does the fold limit (photo_fold.h), so
 * results never depend on how advance() calls are split.
 *
 * Units: lengths in the image's shorter edge (the mesh spans
 * [0, W/min(W,H)] × [0, H/min(W,H)]), velocities in those units per second;
 * every point and radius a command takes is in these units.
 *
 * Grab: the weight w_i = exp(-d²/2r²), d from the vertex's REST position to
 * the grab point, times (1 - p_i) under pins.  The radius r is the grab's,
 * else the def's, else 1/6 of the shorter side of the mask's bounding box
 * (pixels with m > 0.5), else 1/6 of the image's shorter edge.  The cursor starts at the grab point; before each step n the
 * grab asks where it is at the end of that step, and the step moves the
 * grabbed vertices by Δ = cursor(n) - cursor(n - 1).  The grip lets go by
 * itself before the first step where |cursor - grab point| > grip · √(k/k0)
 * (grip ≤ 0: never).  Release keeps every velocity (inertia).
 * Pins: up to WB_PHOTO_MAX_PINS; gaussians g of the pin radius (default half
 * the grab radius of the def), combined p = 1 - Π(1 - g).
 * Mask: the state carries its weights for the renderer, which draws the
 * object with them as alpha over the still background; the mesh moves as
 * without a mask, so the object's edge and holes go with it and nothing
 * folds at its seam (a held outside would have to).  A mask with no vertex
 * inside holds every vertex still.
 */
#ifndef WB_PHOTO_SIM_H
#define WB_PHOTO_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/fields.h"
#include "sim/photo.h"
#include "sim/spring.h"

#define WB_PHOTO_MAX_PINS 4      /* pins held at once */
#define WB_PHOTO_PIN_NAME 64     /* bytes of a pin's name, its NUL included */

typedef struct WbPhotoSim WbPhotoSim;

typedef struct WbPhotoStats {
    bool moving;              /* not settled */
    double max_displacement;  /* max |x - rest| over vertices, shorter-edge units */
    double max_speed;         /* max |v|, units/s */
    double time;              /* simulated time, s */
    double settled_at;        /* time the mesh last came to rest, s; -1 while moving */
    bool grabbing;            /* a grab is active */
    int64_t limited;          /* vertices the fold limit put back so far (photo_fold.h) */
} WbPhotoStats;

/* The simulation's parameters, in its own units. */
typedef struct WbPhotoSimDef {
    int grid;                  /* cells per side, [1, 4096] */
    double frequency;          /* Hz of the spring at elasticity 0, > 0: k0 = (2π f)² */
    double elasticity;         /* s in [-1, 1]: k = k0 · 2^s */
    double bounce;             /* damping ratio ζ in [0, 1] */
    WbSpringIntegrator integrator;
    double rate;               /* steps per second, > 0 */
    bool radius_auto;          /* grab radius by the rule above ... */
    double radius;             /* ... or this, shorter-edge units */
    double grip;               /* shorter-edge units at s = 0; ≤ 0 never lets go */
    double settle_epsilon;     /* "still" amplitude, shorter-edge units; 0 never settles */
    bool grabs, pins;          /* commands of that kind will come: their weight
                                  arrays are allocated up front */
    bool fold_limit;           /* keep triangles from folding (sim/photo_fold.h):
                                  every round(rate/60) steps (on the settle
                                  schedule, and on each frame's step given by
                                  wb_photo_sim_fold_frames), whatever fell
                                  below the floor goes back to where it was
                                  the last time.  A state between two such
                                  steps is not limited yet */
} WbPhotoSimDef;

/* Where the cursor is at the end of step `step` (shorter-edge units). */
typedef void (*WbPhotoCursorFn)(void *ctx, int64_t step, double *x, double *y);

typedef struct WbPhotoGrab {
    double x, y;               /* the grab point, units */
    bool radius_auto;          /* the def's radius ... */
    double radius;             /* ... or this one, units */
    WbPhotoCursorFn cursor;    /* asked before every step while the grab holds */
    void *ctx;                 /* for cursor; must outlive the grab */
} WbPhotoGrab;

typedef struct WbPhotoPin {
    double x, y;               /* units */
    bool radius_auto;          /* half the def's grab radius ... */
    double radius;             /* ... or this one, units */
    const char *name;          /* "" = unnamed; copied */
} WbPhotoPin;

/* Build the simulation for def.  img_w×img_h is the photo's size in pixels;
 * mask_px (may be NULL) holds img_w*img_h weights in [0,1], row major, top
 * row first, and is sampled bilinearly at the vertices' rest positions
 * (pixel centres at +0.5).  The mesh starts at rest.
 * Errors: WB_E_INPUT for an Euler step that would be unstable at this rate
 * (the message names the rate that is needed); WB_E_IO when out of memory. */
WbStatus wb_photo_sim_create(WbPhotoSim **out, const WbPhotoSimDef *def, int img_w, int img_h,
                             const float *mask_px, WbError *err);

/* Also run the fold limit on the step of every frame of a clock of `fps`
 * frames a second after `preroll` seconds (core/frames.h), so that no
 * drawn frame shows a fold at any frame rate.  0 fps: the settle schedule
 * alone. */
void wb_photo_sim_fold_frames(WbPhotoSim *sim, double fps, double preroll);

void wb_photo_sim_destroy(WbPhotoSim *sim);

/* Run steps until `step` steps have been taken in total (no-op if already
 * there).  Errors: WB_E_DIVERGED when a position or velocity became NaN/Inf;
 * the message names the vertex (i, j), the time by which it happened and
 * the time of the last check (the check runs once per call, at its end). */
WbStatus wb_photo_sim_advance(WbPhotoSim *sim, int64_t step, WbError *err);

/* wb_photo_sim_advance without the check: for runs up to a command, when
 * the caller's advance goes on past it and checks at its end. */
void wb_photo_sim_run(WbPhotoSim *sim, int64_t step);

/* New spring parameters (def's units) from the next step on, for a ramp:
 * the step's coefficients and the grip follow; the state is kept.  False,
 * with nothing changed, when the Euler step would blow up at this rate. */
bool wb_photo_sim_set_spring(WbPhotoSim *sim, double frequency, double elasticity, double bounce,
                             double grip);

/* Commands, given between steps: they act from the next step on.  A grab
 * replaces the one that holds; release and unpin free what they held. */
void wb_photo_sim_grab(WbPhotoSim *sim, const WbPhotoGrab *grab);
void wb_photo_sim_release(WbPhotoSim *sim);
/* At most WB_PHOTO_MAX_PINS held (the caller checks its timeline). */
void wb_photo_sim_pin(WbPhotoSim *sim, const WbPhotoPin *pin);
/* Unpin the pins of that name; "" unpins every one. */
void wb_photo_sim_unpin(WbPhotoSim *sim, const char *name);

/* The number of steps that covers time t (s): floor(t·rate + 1e-9). */
int64_t wb_photo_sim_step_at(const WbPhotoSim *sim, double t);

/* Steps taken so far, and the time they reach (s). */
int64_t wb_photo_sim_steps(const WbPhotoSim *sim);
double wb_photo_sim_time(const WbPhotoSim *sim);

/* Settled, and no grab active. */
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

/* Every value a later step reads (core/fields.h): positions, velocities,
 * step counters, settling, the grab and the pins with their weights.  The
 * rest positions and the mask are the scene's and are not listed.  When
 * loading, a grab that holds asks `cursor(ctx, ...)` from then on (the
 * caller's, as at wb_photo_sim_grab). */
void wb_photo_sim_fields(WbPhotoSim *sim, WbFields *f, WbPhotoCursorFn cursor, void *ctx);

/* The spring in use: k (1/s²) and the step coefficients. */
const WbPhotoStep *wb_photo_sim_coef(const WbPhotoSim *sim);

#endif

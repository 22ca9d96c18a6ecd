/* photo.h — the photo mesh as independent springs to rest (SPEC 4.1).
 *
 * State: a (grid+1)² vertex grid, vertex (i, j) at index j*(grid+1) + i,
 * stored as separate contiguous float arrays (SoA, 64-byte aligned):
 * position x, y; velocity vx, vy; rest rx, ry.  Lengths are in units of the
 * image's SHORTER edge (the image spans [0, W/min(W,H)] × [0, H/min(W,H)]),
 * so distances are the same in x and y; velocities in those units per second.
 *
 * Each vertex obeys d'' = -k d - c d' with d = x - rest (see spring.h).  On
 * top of the spring, two optional per-vertex weight arrays act:
 *   grab e_i in [0,1]: this fraction of the vertex follows the cursor
 *     kinematically (moves by the cursor's increment Δ, velocity Δ/dt);
 *   pin  p_i in [0,1]: this fraction holds its place (no motion at all);
 * the remaining fraction a_i = 1 - e_i - p_i keeps simulating:
 *     (x', v') = spring step of (x, v)
 *     x ← x + a (x' - x) + e Δ ;   v ← a v' + e Δ/dt
 * The controller keeps e_i + p_i ≤ 1 (photo_sim.h).
 *
 * Rest invariant: a vertex with e_i = 0 at rest with zero velocity is
 * mapped by the spring step to exactly itself (0·anything = 0), so it stays
 * at rest bit for bit.  The mask weights are carried for the renderer; the
 * step does not read them.
 *
 * The step allocates nothing and does no I/O; each mode is one flat loop
 * over vector lanes (sim/photo_kernel.inc).
 */
#ifndef WB_PHOTO_H
#define WB_PHOTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "sim/spring.h"

typedef struct WbPhotoState {
    int grid;                 /* cells per side; cols = rows = grid + 1 */
    size_t n;                 /* vertices, (grid+1)² */
    float *x, *y;             /* positions (shorter-edge units) */
    float *vx, *vy;           /* velocities (units/s) */
    float *rx, *ry;           /* rest positions, never change */
    float *mask;              /* per-vertex mask weight in [0,1], or NULL (all 1) */
    float *grab;              /* effective grab weight e_i, or NULL when no grab */
    float *pin;               /* combined pin weight p_i, or NULL when no pins */
    bool settled;             /* at rest: x == rest (or held), v == 0, step is a no-op */
} WbPhotoState;

/* Per-step coefficients for one (k, c, dt, integrator), made by
 * wb_photo_step_coef.  Plain floats so the loops run in float32. */
typedef struct WbPhotoStep {
    WbSpringIntegrator integrator;
    float dt, inv_dt;         /* s, 1/s */
    float kdt, cdt;           /* Euler: k·dt (1/s), c·dt (1) */
    float m00, m01, m10, m11; /* exact: (d', v') = M (d, v) */
    float inv_k;              /* 1/k (s²), for the energy test */
    double k, zeta;           /* what they were made from */
} WbPhotoStep;

/* Fill *out for spring constant k (1/s², > 0), damping ratio zeta (≥ 0) and
 * step dt (s, > 0).  Returns false (and leaves *out usable) when the Euler
 * integrator is unstable at this dt: its step map grows (see spring.h). */
bool wb_photo_step_coef(WbPhotoStep *out, double k, double zeta, double dt,
                        WbSpringIntegrator integrator);

/* Allocate a grid×grid-cell state at rest over an image of img_w×img_h pixels,
 * zero velocity, no mask/grab/pin arrays.  grid in [1, 4096].
 * Errors: WB_E_INPUT (bad size), WB_E_IO (out of memory). */
WbStatus wb_photo_state_init(WbPhotoState *s, int grid, int img_w, int img_h, WbError *err);
void wb_photo_state_free(WbPhotoState *s);

/* Allocate a zeroed, aligned float array of s->n (for mask/grab/pin).
 * NULL when out of memory; release with wb_photo_array_free. */
float *wb_photo_array_alloc(size_t n);
void wb_photo_array_free(float *a);

/* Take ownership of per-vertex mask weights (s->n floats from
 * wb_photo_array_alloc, or NULL for none): the renderer's alpha. */
void wb_photo_apply_mask(WbPhotoState *s, float *mask);

/* One step.  (ddx, ddy) is the cursor's displacement over this step
 * (shorter-edge units), used only where s->grab is non-NULL.  A settled
 * state with no cursor motion returns at once; cursor motion with a grab
 * clears `settled`. */
void wb_photo_step(WbPhotoState *s, const WbPhotoStep *k, float ddx, float ddy);

/* n consecutive steps (n ≥ 0) in one pass over memory: step j uses the
 * cursor displacement (ddx[j], ddy[j]).  The result is bit for bit that of
 * n calls wb_photo_step(s, k, ddx[j], ddy[j]), the settled skip included:
 * the vertices are independent, so the steps run block by block, each block
 * taken through all n steps while it sits in cache.  Returns how many steps
 * ran (n minus the leading steps a settled state skips).  When bad is not
 * NULL, *bad = wb_photo_find_nonfinite(s) of the final state, found during
 * the pass (each block is scanned right after its last step).  The caller
 * must not change the grab/pin arrays between the steps it fuses: a run
 * ends wherever the timeline changes them. */
int wb_photo_step_n(WbPhotoState *s, const WbPhotoStep *k, int n, const float *ddx,
                    const float *ddy, int64_t *bad);

/* Is anything still moving?  A vertex moves when its free motion amplitude
 * exceeds eps (shorter-edge units):  (a d)² + v²/k > eps², a = 1 - e - p the
 * free fraction (1 without grab and pins) — i.e. its energy, as a pull
 * distance.  Velocities are tested first (|v|² > eps² k alone is enough) and
 * the scan stops at the first moving block.  NaN counts as moving. */
bool wb_photo_moving(const WbPhotoState *s, const WbPhotoStep *k, float eps);

/* Come to rest: v = 0 everywhere; x = rest exactly wherever |x - rest| ≤ eps
 * per axis pair (everything, when no pin or grab holds a deformation);
 * marks the state settled.  Call after wb_photo_moving returned false: the
 * snap then moves no vertex by more than √2·eps. */
void wb_photo_settle(WbPhotoState *s, float eps);

/* Index of the first vertex whose position or velocity is NaN/Inf, or -1. */
int64_t wb_photo_find_nonfinite(const WbPhotoState *s);

/* The fold limit's sign pass (photo_fold.h) in one sweep: copies x, y to
 * nx, ny (s->n floats each) and counts the corner triangles whose doubled
 * signed area is below lim (NaN is not), over the whole mesh; bad_row[j]
 * (grid entries) is 1 when cell row j has one.  The same count at every
 * width. */
int64_t wb_photo_corner_scan(const WbPhotoState *s, float lim, float *nx, float *ny,
                             uint8_t *bad_row);

#endif

/* timeline.h — the scene's clock rules, written once: on which step an
 * event fires, easing, and keyed values.
 *
 * Steps: a solver takes fixed steps; step n ends at time n·dt.  An event at
 * time t fires at the start of the first step whose end reaches t, step
 * ceil(t/dt) (0 for t <= 0), so nothing depends on the output fps or on how
 * the frame loop splits its advances.  The 1e-9 margin keeps an event that
 * lands on a step boundary (0.5 s at 1/240 s steps) on that step despite
 * the rounding of t/dt.
 *
 * Keys: a keyed value starts at a point at a start time, moves to each key
 * by the key's time with the key's easing (the segment that ENDS at a key
 * is eased by that key), and holds the last key.  With u the segment's time
 * fraction: linear u;  in u³;  out 1-(1-u)³;  in-out 3u²-2u³;  step 0 until
 * the key's time, then 1.
 */
#ifndef WB_TIMELINE_H
#define WB_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scene/scene.h"

/* The step an event at `time` seconds fires on, the clock given by its rate
 * (steps/s; photo.rate) or by its step (s; rope.step, 1/rate elsewhere).
 * Both are the rule above; each kind keeps the arithmetic of its clock. */
int64_t wb_timeline_event_step(double time, double rate);
int64_t wb_timeline_event_step_dt(double time, double dt);

/* The time step n ends at (s): n/rate, correctly rounded (step 168 at
 * 240 Hz is 0.7). */
double wb_timeline_step_time(int64_t step, double rate);

/* Easing of a key segment: u (time through the segment, clamped to [0, 1])
 * to the fraction of the way covered. */
double wb_timeline_ease(WbEase e, double u);

/* The keyed value at time t from (x0, y0) at time t0 through keys[0..n)
 * (times increasing, the first after t0).  The keys' points are used as
 * numbers: resolve pixel points first. */
void wb_timeline_keys_at(const WbKey *keys, size_t n, double t0, double x0, double y0, double t,
                         double out[2]);

/* A key list from `start` at 0 s (rope anchors, jiggle drives). */
void wb_timeline_list_at(const WbKeyList *keys, WbPoint start, double t, double out[2]);

/* Cycles (output.loop): a key list that ends where it starts (its last
 * key's point is `start`) repeats under a loop, with the period of its
 * last key's time; the value at t is then the value at t mod period.
 * The period, or 0 when the list is empty or does not close. */
double wb_timeline_list_cycle(const WbKeyList *keys, WbPoint start);

/* t folded into [0, period) when period > 0, else t. */
double wb_timeline_cycle_time(double t, double period);

/* A kind's walk through the scene's events (sorted by time), in steps. */
typedef struct WbTimeline {
    const WbEvent *events;     /* the scene's; must outlive the walk */
    size_t n, next;            /* events, and the first not fired yet */
    double rate, dt;           /* the clock: rate > 0, else dt */
} WbTimeline;

/* Start a walk on a clock given by its rate (steps/s) or by its step (s). */
WbTimeline wb_timeline_rate(const WbEvent *events, size_t n, double rate);
WbTimeline wb_timeline_dt(const WbEvent *events, size_t n, double dt);

/* The step the next event fires on, INT64_MAX when none is left. */
int64_t wb_timeline_next_step(const WbTimeline *tl);

/* The next event if it fires on or before `step` (and move past it), else
 * NULL: `while ((ev = wb_timeline_due(&tl, step)))` fires a step's events
 * in file order. */
const WbEvent *wb_timeline_due(WbTimeline *tl, int64_t step);

/* Every event has fired. */
bool wb_timeline_done(const WbTimeline *tl);

/* Ramps (`set` events).  A parameter holds its value from the scene file
 * until its first set event fires (on that event's step, as above); a set
 * event at time te then takes it from the value v0 it has on that step to
 * `to` over `over` seconds,
 *     v(t) = v0 + (to − v0)·ease((t − te) / over)   (over 0: `to` at once),
 * and holds `to`.  A later set of the same key starts from wherever the
 * earlier one had got to.  t is the start time of the step being taken, so
 * the value is a pure function of the step index: a frame range or a chunk
 * needs no history, and every rate samples the same curve. */

/* The value of the parameter at byte `offset` of the kind's block on step
 * `step`, `base` (its file value) before any set of it fires.  tl's events
 * and clock are used, not its walk. */
double wb_timeline_ramp_value(const WbTimeline *tl, size_t offset, double base, int64_t step);

/* Write every ramped parameter into `live` (a copy of the kind's block
 * `base` as loaded) at step `step`.  Other fields of live are untouched. */
void wb_timeline_ramp_block(const WbTimeline *tl, const void *base, void *live, int64_t step);

/* The step on and after which no ramp changes anything any more (0 when the
 * timeline has no set event). */
int64_t wb_timeline_ramps_end(const WbTimeline *tl);

#endif

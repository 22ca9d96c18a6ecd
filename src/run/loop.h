/* loop.h — seamless loops (output.loop): the drivers' common period, the
 * pre-roll that lets the motion settle into it, and the seam error.
 *
 * Only the run layer knows which drivers repeat and how fast: jiggle's
 * orbit swing (drive.orbit.period) and walk cycle (drive.walk.period, or
 * π/3.2 s), cloth's wind gusts (periods 2π/2.1 and 2π/0.7 s).  The loop's
 * period L is the least common multiple of those, of the frame time 1/fps
 * and of the step 1/rate, so that one period is a whole number of frames
 * and of steps and the simulation sees the same driver samples every
 * period.  The search tries L = k·P for k = 1, 2, ... (P the longest of
 * them) up to WB_LOOP_MAX_SECONDS; a multiple is common when L/q is within
 * WB_LOOP_MATCH of a whole number for every period q.
 *
 * Pre-roll: a damped system driven periodically forgets its start like
 * e^(−ζωt); the run is simulated period by period, and the first period
 * whose end state differs from its start by at most WB_LOOP_SETTLE_SHARE of
 * the motion's amplitude ends the pre-roll.  The loop is then the next
 * loop_periods periods: output.preroll and output.duration are replaced,
 * so --frames, chunks, --state and the frame count all follow from the
 * one frame clock (runner.h).  The seam error is measured on the same
 * simulation, which the render repeats exactly (it is deterministic).
 */
#ifndef WB_LOOP_H
#define WB_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "run/runner.h"
#include "scene/scene.h"

/* The longest loop period and the longest pre-roll searched, s. */
#define WB_LOOP_MAX_SECONDS 600.0
/* A multiple L of every period: |L/q − round(L/q)| below this. */
#define WB_LOOP_MATCH 1e-6
/* Pre-roll ends when one period changes the state by at most this share of
 * the amplitude (10 times under the seam warning). */
#define WB_LOOP_SETTLE_SHARE 1e-3
/* Seam errors above this share of the amplitude are warned about: a jump
 * of 1 % of the swing hides within the motion's own frame-to-frame change
 * (π/N of the swing for a period of N frames) up to N ≈ 300 frames. */
#define WB_LOOP_SEAM_SHARE 1e-2

typedef struct WbLoopReport {
    bool active;               /* output.loop was on */
    double period;             /* s, the drivers' common period L */
    int64_t period_frames, period_steps;
    int periods;               /* rendered (output.loop_periods) */
    int64_t preroll_periods;   /* simulated before frame 0 */
    bool settled;              /* the pre-roll reached WB_LOOP_SETTLE_SHARE */
    double seam;               /* largest |end − start| of a position, `unit` */
    double amplitude;          /* largest range of a position over the loop, `unit` */
    const char *unit;          /* "units" (jiggle bone offsets), "m" (cloth) */
    char drivers[192];         /* what repeats, for the message */
} WbLoopReport;

/* When scene->output.loop is set: find the period (WB_E_INPUT naming what
 * is not periodic, at the event's file:line:col when an event is; or that
 * the periods have no common multiple), simulate the pre-roll and the loop
 * once to measure the seam, and write the loop's output.preroll and
 * output.duration into the scene.  Otherwise rep->active is false and the
 * scene is left alone.  The scene must be loaded and valid. */
WbStatus wb_loop_resolve(WbScene *scene, const WbRunnerOptions *opt, WbLoopReport *rep,
                         WbError *err);

/* The seam error as a share of the amplitude (0 when nothing moves). */
double wb_loop_seam_share(const WbLoopReport *rep);

/* The seam is over WB_LOOP_SEAM_SHARE of the amplitude. */
bool wb_loop_seam_visible(const WbLoopReport *rep);

#endif

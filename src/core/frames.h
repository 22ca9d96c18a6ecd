/* frames.h — the frame clock: the simulation step each frame is drawn at.
 *
 * Every kind steps at a fixed rate and draws frame f after the step
 * floor(rate·(preroll + f/fps)), in long double so that frame times landing
 * on a step boundary (240/30 = 8 steps a frame) never round down.  Shared
 * by the run layer, which advances to these steps, and solvers that keep a
 * schedule on them (the photo's fold limit).
 */
#ifndef WB_FRAMES_H
#define WB_FRAMES_H

#include <math.h>
#include <stdint.h>

/* Steps at most: a step count beyond this is clamped. */
#define WB_MAX_STEPS (INT64_C(1) << 62)

/* n as a step count: 0 for negative or NaN, at most WB_MAX_STEPS. */
static inline int64_t wb_steps(double n)
{
    /* !(n >= 0) also takes NaN; the cast is defined only below 2^63. */
    if (!(n >= 0))
        return 0;
    return n >= (double)WB_MAX_STEPS ? WB_MAX_STEPS : (int64_t)n;
}

/* The step frame f is drawn after, at `fps` frames and `rate` steps a
 * second, `preroll` seconds simulated before frame 0. */
static inline int64_t wb_frame_step(int64_t f, double fps, double rate, double preroll)
{
    if (!(preroll > 0)) {
        long double t = (long double)f * (long double)rate / (long double)fps;
        return wb_steps((double)floorl(t + 1e-9L));
    }
    long double t = (long double)f * (long double)rate / (long double)fps +
                    (long double)preroll * (long double)rate;
    return (int64_t)floorl(t + 1e-9L);
}

#endif

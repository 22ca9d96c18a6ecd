/* blur.h — motion blur: a frame as the average of sub-frame states.
 *
 * Shutter: trailing.  Frame f (scene time t = preroll + f/fps) averages N
 * samples at the times
 *     t_j = t − S·j / (N·fps),   j = N−1, …, 1, 0,
 * the ends of N equal parts of the shutter interval [t − S/fps, t]; the
 * last one (j = 0) is the frame's own state, so the runner is left exactly
 * where an unblurred render leaves it, and no state after the frame's time
 * is ever needed.  (The picture lags the frame time by half the shutter,
 * as a film camera's does.)
 *
 * Steps: a sample shows the state after floor(t_j·rate) solver steps, the
 * same clock as the frames (runner.h); the simulation is the unblurred
 * one, only drawn more often.  When the solver's step is longer than the
 * sample spacing, neighbouring samples land on the same step and repeat
 * its state (the blur is then coarser, never interpolated); times before
 * 0 land on step 0.  With S = 1 and N samples, the samples of frame f are
 * frames N·f − j of an unblurred render at N·fps.
 *
 * Averaging: in linear light and premultiplied alpha.  Each 8-bit sRGB
 * channel c becomes c_lin = srgb_to_linear(c/255); the sums
 * Σ a·c_lin and Σ a (a = alpha/255) over the samples, in sample order and
 * in float, give colour (Σ a·c_lin)/(Σ a) re-encoded to sRGB and rounded,
 * and alpha round(255·Σ a / N).  Every pixel is summed alone in a fixed
 * order, so the bytes depend neither on the thread count nor on the vector
 * width; N equal samples give back their own bytes.
 */
#ifndef WB_BLUR_H
#define WB_BLUR_H

#include <stdint.h>

#include "core/error.h"
#include "core/image.h"
#include "core/pool.h"
#include "run/runner.h"
#include "scene/scene.h"

#define WB_BLUR_BINS 4096        /* bins of linear light that start the re-encoding */

typedef struct WbBlur {
    int samples;               /* N, >= 2 */
    WbImage sample;            /* each sub-frame is drawn here */
    float *sum;                /* 4 per pixel: Σ a·r, Σ a·g, Σ a·b (linear), Σ a */
    float lin[256];            /* sRGB byte -> linear light */
    float edge[255];           /* linear light half way between sRGB bytes k and k+1 */
    uint8_t start[WB_BLUR_BINS]; /* the byte at the bottom of each bin of linear light */
    bool drawn;                /* a sample has been drawn */
    bool unsteady;             /* the last frame's samples were not all one state */
} WbBlur;

/* Blur is on for this output (motion_blur.samples > 1). */
bool wb_blur_enabled(const WbOutputDef *out);

/* Prepare for frames of w×h pixels.  WB_E_IO when out of memory; on
 * failure *b needs no free. */
WbStatus wb_blur_init(WbBlur *b, const WbOutputDef *out, int w, int h, WbError *err);
void wb_blur_free(WbBlur *b);

/* The step sample j (N−1 … 0, as above) of frame f shows; j = 0 is
 * wb_runner_frame_step(out, f, rate). */
int64_t wb_blur_sample_step(const WbOutputDef *out, int64_t f, int j, double rate);

/* Advance the runner through frame f's samples, draw each, and write their
 * average into dst (runner-sized).  *changed: false when no sample's state
 * differed from the last blurred frame's (dst is then left alone: the
 * caller sends that frame again).  Errors: the runner's. */
WbStatus wb_blur_frame(WbBlur *b, const WbRunner *run, WbPool *pool, const WbOutputDef *out,
                       int64_t f, WbImage *dst, bool *changed, WbError *err);

#endif

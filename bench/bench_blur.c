/* bench_blur.c — the cost of output.motion_blur: 20 frames of a rope scene
 * and of a 2D jiggle disc at 640×480, through the frame loop (simulation,
 * draws, the average; frames handed to a writer that drops them), with
 * samples 1, 4 and 16 on 1 thread.  Prints ms per frame, and ms per sample
 * per frame ((frame(16) − frame(4)) / 12: what one more sample adds, without
 * the average's fixed cost per frame, which is frame(4) − 4·that − frame(1)),
 * the median of 5 runs, in CPU time (steadier than the wall clock on a
 * shared machine).  The fast-forward to the first frame is included.
 *
 *   build/bench/bench_blur [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "core/pool.h"
#include "run/frame_loop.h"
#include "run/runner.h"
#include "scene/scene_load.h"

#define FRAMES 20
#define FIRST 30   /* mid-motion */

static const char rope_scene[] =
    "wobble: 1\nkind: rope\noutput: {width: 640, height: 480, fps: 30, duration: 3}\n"
    "rope:\n  view: {width: 4, height: 3}\n  ropes:\n"
    "    - {from: [0.5, 0.35], to: [1.45, 0.35], nodes: 24, end_mass: 6}\n"
    "    - {from: [2.6, 0.35], to: [3.3, 0.9], nodes: 16, end_mass: 10}\n";

static const char jiggle_scene[] =
    "wobble: 1\nkind: jiggle\noutput: {width: 640, height: 480, fps: 30, duration: 3}\n"
    "jiggle: {view: 2d, shape: disc, drive: {walk: {bob: 0.3}, gain: 3}}\n";

static WbStatus drop(void *self, int64_t frame, const WbImage *img, const WbDamage *d,
                     WbError *err)
{
    (void)self, (void)frame, (void)img, (void)d, (void)err;
    return WB_OK;
}

static void die(const char *what, const WbError *e)
{
    fprintf(stderr, "bench_blur: %s: %s\n", what, e->msg);
    exit(1);
}

/* Wall ms per frame of frames [FIRST, FIRST + FRAMES) with `samples`. */
static double time_frames(const char *text, int samples)
{
    char set[64];
    snprintf(set, sizeof set, "output.motion_blur.samples=%d", samples);
    const char *sets[] = {set, "output.motion_blur.shutter=1"};
    WbError e;
    WbScene s;
    if (wb_scene_load_string("bench.yaml", text, sets, 2, &s, &e))
        die("scene", &e);
    WbRunner r;
    WbRunnerOptions opt = {.aa = 4};
    if (wb_runner_create(&r, &s, &opt, &e))
        die("runner", &e);
    WbImage bufs[2];
    WbDamage dmg[2] = {{0}};
    if (wb_image_alloc(&bufs[0], r.width, r.height, &e) ||
        wb_image_alloc(&bufs[1], r.width, r.height, &e))
        die("image", &e);
    WbFrameLoop fl = {.runner = &r, .write = drop, .frames = bufs, .damage = dmg,
                      .output = &s.output, .first = FIRST, .end = FIRST + FRAMES};
    WbFrameLoopResult res;
    double t0 = wb_bench_cpu_ms();
    if (wb_frame_loop_run(&fl, &res, &e))
        die("frame loop", &e);
    double ms = (wb_bench_cpu_ms() - t0) / FRAMES;
    wb_image_free(&bufs[0]);
    wb_image_free(&bufs[1]);
    r.destroy(r.self);
    wb_scene_free(&s);
    return ms;
}

static double median_of(const char *text, int samples, int runs)
{
    double v[9];
    for (int i = 0; i < runs; i++)
        v[i] = time_frames(text, samples);
    return wb_bench_median(v, runs);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 1 : 5;
    const struct { const char *name, *text; } scenes[] = {
        {"rope 640x480", rope_scene},
        {"jiggle-2d 640x480", jiggle_scene},
    };
    printf("%-18s %12s %12s %12s %10s %10s\n", "scene", "1 (ms/fr)", "4 (ms/fr)",
           "16 (ms/fr)", "ms/sample", "fixed ms");
    for (size_t k = 0; k < sizeof scenes / sizeof *scenes; k++) {
        double t1 = median_of(scenes[k].text, 1, runs);
        double t4 = median_of(scenes[k].text, 4, runs);
        double t16 = median_of(scenes[k].text, 16, runs);
        double per = (t16 - t4) / 12.0;
        printf("%-18s %12.2f %12.2f %12.2f %10.2f %10.2f\n", scenes[k].name, t1, t4, t16, per,
               t4 - 4.0 * per - t1);
    }
    return 0;
}

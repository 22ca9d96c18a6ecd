/* test_loop.c — seamless loops (run/loop.h): the common period of the
 * drivers, the frame time and the step; the loop's pre-roll and length
 * written into the scene; the seam under the warning; refusals; and the
 * timeline's cycle rule and the ping-pong frame count. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "io/sink.h"
#include "run/loop.h"
#include "run/runner.h"
#include "run/timeline.h"
#include "scene/scene.h"
#include "scene/scene_load.h"

static WbStatus resolve(const char *text, WbScene *s, WbLoopReport *rep, WbError *e)
{
    wb_error_clear(e);
    WbStatus st = wb_scene_load_string("t.yaml", text, NULL, 0, s, e);
    cr_assert_eq(st, WB_OK, "%s", e->msg);
    WbRunnerOptions ro = {.aa = 1};
    return wb_loop_resolve(s, &ro, rep, e);
}

/* a walk of 1.5 s at 20 fps and 120 steps/s: 30 frames, 180 steps. */
Test(loop, walk_period_frames_and_steps)
{
    WbScene s;
    WbLoopReport rep;
    WbError e;
    WbStatus st = resolve("wobble: 1\nkind: jiggle\noutput: {fps: 20, width: 32, height: 18, loop: true}\n"
                          "jiggle: {view: 2d, drive: {walk: {period: 1.5}}}\n",
                          &s, &rep, &e);
    cr_assert_eq(st, WB_OK, "%s", e.msg);
    cr_assert(rep.active);
    cr_assert_float_eq(rep.period, 1.5, 1e-12);
    cr_assert_eq(rep.period_frames, 30);
    cr_assert_eq(rep.period_steps, 180);
    cr_assert(rep.settled);
    cr_assert_eq(wb_runner_frame_count(&s.output), 30);
    /* frame 0 is on a period boundary: a whole number of periods of steps */
    int64_t s0 = wb_runner_frame_step(&s.output, 0, 120.0);
    cr_assert_eq(s0, rep.preroll_periods * 180);
    cr_assert_gt(s0, 0);
    cr_assert_eq(wb_runner_frame_step(&s.output, 30, 120.0), s0 + 180);
    cr_assert_lt(wb_loop_seam_share(&rep), WB_LOOP_SEAM_SHARE);
    cr_assert(!wb_loop_seam_visible(&rep));
    wb_scene_free(&s);
}

/* 0.7 s at 24 fps is 16.8 frames: the loop is 5 periods, 3.5 s, 84 frames. */
Test(loop, period_is_made_whole_frames)
{
    WbScene s;
    WbLoopReport rep;
    WbError e;
    WbStatus st = resolve("wobble: 1\nkind: jiggle\noutput: {fps: 24, width: 32, height: 18, "
                          "loop: true, loop_periods: 2}\n"
                          "jiggle: {view: 2d, drive: {orbit: {period: 0.7}}}\n", &s, &rep, &e);
    cr_assert_eq(st, WB_OK, "%s", e.msg);
    cr_assert_float_eq(rep.period, 3.5, 1e-12);
    cr_assert_eq(rep.period_frames, 84);
    cr_assert_eq(wb_runner_frame_count(&s.output), 168);
    wb_scene_free(&s);
}

Test(loop, an_event_is_refused_at_its_place)
{
    WbScene s;
    WbLoopReport rep;
    WbError e;
    WbStatus st = resolve("wobble: 1\nkind: jiggle\noutput: {loop: true}\n"
                          "jiggle: {view: 2d, drive: {orbit: {period: 1}}}\n"
                          "timeline:\n  - time: 1\n    shake: {span: 2}\n", &s, &rep, &e);
    cr_assert_eq(st, WB_E_INPUT);
    cr_assert_eq(e.line, 6);
    cr_assert(strstr(e.msg, "'shake' event"), "%s", e.msg);
    wb_scene_free(&s);
}

Test(loop, off_leaves_the_scene_alone)
{
    WbScene s;
    WbLoopReport rep;
    WbError e;
    WbStatus st = resolve("wobble: 1\nkind: jiggle\noutput: {preroll: 0.5, duration: 2}\n"
                          "jiggle: {view: 2d}\n", &s, &rep, &e);
    cr_assert_eq(st, WB_OK);
    cr_assert(!rep.active);
    cr_assert_float_eq(s.output.preroll, 0.5, 0);
    cr_assert_float_eq(s.output.duration, 2.0, 0);
    wb_scene_free(&s);
}

Test(loop, cycle_rule_and_pingpong_count)
{
    WbKeyList k = {.n = 2};
    k.keys[0] = (WbKey){.time = 1.0, .to = {.x = 1.0, .y = 0.0}};
    k.keys[1] = (WbKey){.time = 2.5, .to = {.x = 0.0, .y = 0.0}};
    cr_assert_float_eq(wb_timeline_list_cycle(&k, (WbPoint){0}), 2.5, 0);
    cr_assert_float_eq(wb_timeline_list_cycle(&k, (WbPoint){.x = 0.1}), 0.0, 0);
    cr_assert_float_eq(wb_timeline_cycle_time(6.0, 2.5), 1.0, 1e-12);
    cr_assert_float_eq(wb_timeline_cycle_time(6.0, 0.0), 6.0, 0);
    cr_assert_eq(wb_sink_pingpong_frames(1), 1);
    cr_assert_eq(wb_sink_pingpong_frames(2), 2);
    cr_assert_eq(wb_sink_pingpong_frames(6), 10);
}

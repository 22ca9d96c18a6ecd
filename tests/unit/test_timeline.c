/* test_timeline.c — the timeline's ramps (`set` events): the value on each
 * step against its closed form, chained ramps, the loader's checks with the
 * key's own range and place, and a ramped jiggle drive against the
 * particular solution of the damped oscillator. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "run/runner.h"
#include "run/timeline.h"
#include "scene/scene.h"
#include "scene/scene_load.h"

static WbStatus load(const char *text, WbScene *s, WbError *e)
{
    wb_error_clear(e);
    return wb_scene_load_string("t.yaml", text, NULL, 0, s, e);
}

static WbEvent set_event(double time, size_t offset, double to, double over, WbEase ease)
{
    WbEvent ev = {.type = WB_EVENT_SET, .time = time};
    ev.u.set.offset = offset;
    ev.u.set.to = to;
    ev.u.set.over = over;
    ev.u.set.ease = ease;
    return ev;
}

/* A linear ramp read back on every step: v = base + (to - base)·u,
 * u = (s·dt − te)/over clamped, from the step the event fires on. */
Test(timeline_ramp, linear_ramp_per_step_matches_closed_form)
{
    const double dt = 1.0 / 240, te = 0.5, over = 1.5, base = 0.3, to = 0.9;
    WbEvent ev = set_event(te, 8, to, over, WB_EASE_LINEAR);
    WbTimeline tl = wb_timeline_dt(&ev, 1, dt);
    for (int64_t s = 0; s < 600; s++) {
        double want = base;
        if (s >= 120) {
            double u = fmin(1.0, ((double)s * dt - te) / over);
            want = base + (to - base) * u;
        }
        cr_assert_float_eq(wb_timeline_ramp_value(&tl, 8, base, s), want, 1e-12, "step %lld",
                           (long long)s);
    }
    cr_assert_eq(wb_timeline_ramp_value(&tl, 16, 7.0, 300), 7.0, "another key is untouched");
    cr_assert_geq(wb_timeline_ramps_end(&tl), 480);
    cr_assert_leq(wb_timeline_ramps_end(&tl), 482);
}

/* A second ramp starts from wherever the first had got to; `over: 0` jumps. */
Test(timeline_ramp, chained_ramps_start_from_the_current_value)
{
    const double dt = 0.01;
    WbEvent ev[3] = {set_event(1.0, 0, 2.0, 2.0, WB_EASE_LINEAR),
                     set_event(2.0, 0, 0.0, 1.0, WB_EASE_IN_OUT),
                     set_event(4.0, 0, 5.0, 0.0, WB_EASE_LINEAR)};
    WbTimeline tl = wb_timeline_dt(ev, 3, dt);
    cr_assert_float_eq(wb_timeline_ramp_value(&tl, 0, 0.0, 150), 0.5, 1e-12);
    /* at 2 s the first ramp is half way (1.0): the second goes 1 -> 0 */
    cr_assert_float_eq(wb_timeline_ramp_value(&tl, 0, 0.0, 200), 1.0, 1e-12);
    cr_assert_float_eq(wb_timeline_ramp_value(&tl, 0, 0.0, 250), 0.5, 1e-12);
    cr_assert_float_eq(wb_timeline_ramp_value(&tl, 0, 0.0, 275), 1.0 - (3 * 0.5625 - 2 * 0.421875),
                       1e-12);
    cr_assert_float_eq(wb_timeline_ramp_value(&tl, 0, 0.0, 399), 0.0, 1e-12);
    cr_assert_float_eq(wb_timeline_ramp_value(&tl, 0, 0.0, 400), 5.0, 1e-12);
}

Test(timeline_ramp, set_binds_the_keys_offset_and_value)
{
    WbScene s;
    WbError e;
    const char *text = "wobble: 1\nkind: photo\nphoto: {image: x.png}\ntimeline:\n"
                       "  - {time: 1, set: {key: photo.bounce, to: 0.6, over: 1.5}}\n";
    cr_assert_eq(load(text, &s, &e), WB_OK, "%s", e.msg);
    cr_assert_eq(s.n_events, 1);
    const WbEvent *ev = &s.events[0];
    cr_assert_eq(ev->type, WB_EVENT_SET);
    cr_assert_eq(ev->u.set.offset, offsetof(WbPhotoDef, bounce));
    cr_assert_float_eq(ev->u.set.to, 0.6, 0);
    cr_assert_float_eq(ev->u.set.over, 1.5, 0);
    cr_assert_eq(ev->u.set.ease, WB_EASE_LINEAR);
    wb_scene_free(&s);

    text = "wobble: 1\nkind: jiggle\ntimeline:\n  - {time: 0, set: {key: jiggle.drive.gain, to: 2}}\n";
    cr_assert_eq(load(text, &s, &e), WB_OK, "%s", e.msg);
    cr_assert_eq(s.events[0].u.set.offset,
                 offsetof(WbJiggleSceneDef, drive) + offsetof(WbJiggleDriveDef, gain));
    wb_scene_free(&s);
}

/* The value is checked by the key's own row: same range, same words, the
 * place of `to`. */
Test(timeline_ramp, set_value_out_of_the_keys_range_is_an_error_at_to)
{
    WbScene s;
    WbError e;
    const char *text = "wobble: 1\nkind: photo\nphoto: {image: x.png}\ntimeline:\n"
                       "  - {time: 1, set: {key: photo.bounce, to: 1.5}}\n";
    cr_assert_eq(load(text, &s, &e), WB_E_INPUT);
    cr_assert_eq(e.line, 5);
    cr_assert_eq(e.col, 44, "col %d", e.col);
    cr_assert(strstr(e.msg, "'photo.bounce'"), "%s", e.msg);
    /* the same words as the key itself in the block */
    WbError e2;
    cr_assert_eq(load("wobble: 1\nkind: photo\nphoto: {image: x.png, bounce: 1.5}\n", &s, &e2), WB_E_INPUT);
    cr_assert_str_eq(strstr(e.msg, "'photo.bounce'"), strstr(e2.msg, "'photo.bounce'"));
}

Test(timeline_ramp, set_of_a_key_that_cannot_ramp_is_an_error)
{
    WbScene s;
    WbError e;
    cr_assert_eq(load("wobble: 1\nkind: photo\nphoto: {image: x.png}\ntimeline:\n"
                      "  - {time: 1, set: {key: photo.settle_epsilon, to: 0.01}}\n", &s, &e), WB_E_INPUT);
    cr_assert(strstr(e.msg, "cannot be ramped"), "%s", e.msg);
    cr_assert(strstr(e.msg, "photo.bounce"), "lists the keys: %s", e.msg);
    cr_assert_eq(e.line, 5);
    cr_assert_eq(load("wobble: 1\nkind: jiggle\ntimeline:\n  - {time: 1, set: {key: jiggle.dmap, to: 1}}\n",
                      &s, &e), WB_E_INPUT);
    cr_assert(strstr(e.msg, "did you mean 'jiggle.damp'"), "%s", e.msg);
    cr_assert_eq(load("wobble: 1\nkind: rope\ntimeline:\n  - {time: 1, set: {key: photo.bounce, to: 1}}\n",
                      &s, &e), WB_E_INPUT);
    cr_assert(strstr(e.msg, "rope.gravity"), "%s", e.msg);
    cr_assert_eq(load("wobble: 1\nkind: rope\ntimeline:\n  - {time: 1, set: {to: 1}}\n", &s, &e), WB_E_INPUT);
    cr_assert(strstr(e.msg, "key"), "%s", e.msg);
}

/* The 1d view's first two masses are critically damped (damp: 1) and feel
 * the parent's acceleration A·gain(t); gain ramps linearly 0 -> 1 over T
 * from te.  For x'' + 2ωx' + ω²x = −A·c·(t − te) the particular solution is
 * x = −(A c / ω²)(t − te − 2/ω); the step holds each step's forcing from its
 * start, a lag of dt/2.  Once the transient (e^{−ωt}) is gone the largest
 * offset is that, and after the ramp it is A/ω² (to within the settle
 * rule, which stops a mass moving slower than 1e-3 units/s). */
Test(timeline_ramp, jiggle_gain_ramp_matches_the_particular_solution)
{
    const char *text = "wobble: 1\nkind: jiggle\noutput: {width: 64, height: 36, fps: 30, duration: 5}\n"
                       "jiggle:\n  view: 1d\n  freq: 5\n  damp: 1\n  rate: 240\n"
                       "  drive: {gain: 0, accel: [{time: 0.001, to: [0, 2], ease: step}]}\n"
                       "timeline:\n  - {time: 0.5, set: {key: jiggle.drive.gain, to: 1, over: 2}}\n";
    WbScene s;
    WbError e;
    cr_assert_eq(load(text, &s, &e), WB_OK, "%s", e.msg);
    WbRunner r;
    WbRunnerOptions opt = {.aa = 1};
    cr_assert_eq(wb_runner_create(&r, &s, &opt, &e), WB_OK, "%s", e.msg);
    const double A = 2.0, c = 0.5, te = 0.5, dt = 1.0 / 240, w = 2 * M_PI * 5;
    WbFrameStats st;
    cr_assert_eq(r.advance(r.self, 119, &e), WB_OK);
    r.stats(r.self, &st);
    cr_assert_eq(st.max_displacement, 0.0, "nothing moves before the ramp");
    for (int64_t n = 360; n <= 600; n += 24) {
        cr_assert_eq(r.advance(r.self, n, &e), WB_OK);
        r.stats(r.self, &st);
        double t = (double)n * dt;
        double want = A * c * (t - te - dt / 2 - 2 / w) / (w * w);
        cr_assert_float_eq(st.max_displacement, want, 2e-4 * want, "t %g: %.9g vs %.9g", t,
                           st.max_displacement, want);
    }
    cr_assert_eq(r.advance(r.self, 1200, &e), WB_OK);
    r.stats(r.self, &st);
    cr_assert_float_eq(st.max_displacement, A / (w * w), 0.02 * A / (w * w));
    r.destroy(r.self);
    wb_scene_free(&s);
}

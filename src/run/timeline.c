/* timeline.c — the clock rules of timeline.h. */
#include "run/timeline.h"

#include <math.h>
#include <string.h>

/* ceil(steps − 1e-9), at least 0: the step an event `steps` steps in fires on. */
static int64_t fire_step(double steps)
{
    double n = ceil(steps - 1e-9);
    /* !(n >= 0) takes NaN too; the cast is defined only below 2^63. */
    if (!(n >= 0))
        return 0;
    return n >= 0x1p62 ? INT64_C(1) << 62 : (int64_t)n;
}

int64_t wb_timeline_event_step(double time, double rate)
{
    return fire_step(time * rate);
}

int64_t wb_timeline_event_step_dt(double time, double dt)
{
    return fire_step(time / dt);
}

double wb_timeline_step_time(int64_t step, double rate)
{
    return (double)step / rate;
}

double wb_timeline_ease(WbEase e, double u)
{
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    switch (e) {
    case WB_EASE_IN: return u * u * u;
    case WB_EASE_OUT: return 1.0 - (1.0 - u) * (1.0 - u) * (1.0 - u);
    case WB_EASE_IN_OUT: return u * u * (3.0 - 2.0 * u);
    case WB_EASE_STEP: return u >= 1.0 ? 1.0 : 0.0;
    case WB_EASE_LINEAR: break;
    }
    return u;
}

void wb_timeline_keys_at(const WbKey *keys, size_t n, double t0, double x0, double y0, double t,
                         double out[2])
{
    for (size_t i = 0; i < n; i++) {
        const WbKey *k = &keys[i];
        if (t < k->time) {
            /* A zero-length first segment is done at once. */
            double e = wb_timeline_ease(k->ease, k->time > t0 ? (t - t0) / (k->time - t0) : 1.0);
            out[0] = x0 + (k->to.x - x0) * e;
            out[1] = y0 + (k->to.y - y0) * e;
            return;
        }
        t0 = k->time;
        x0 = k->to.x;
        y0 = k->to.y;
    }
    out[0] = x0;
    out[1] = y0;
}

void wb_timeline_list_at(const WbKeyList *keys, WbPoint start, double t, double out[2])
{
    wb_timeline_keys_at(keys->keys, (size_t)keys->n, 0.0, start.x, start.y, t, out);
}

double wb_timeline_list_cycle(const WbKeyList *keys, WbPoint start)
{
    if (keys->n <= 0)
        return 0.0;
    const WbKey *last = &keys->keys[keys->n - 1];
    bool closed = last->to.x == start.x && last->to.y == start.y && last->time > 0;
    return closed ? last->time : 0.0;
}

double wb_timeline_cycle_time(double t, double period)
{
    if (!(period > 0))
        return t;
    double c = fmod(t, period);
    return c < 0 ? c + period : c;
}

WbTimeline wb_timeline_rate(const WbEvent *events, size_t n, double rate)
{
    return (WbTimeline){.events = events, .n = n, .rate = rate};
}

WbTimeline wb_timeline_dt(const WbEvent *events, size_t n, double dt)
{
    return (WbTimeline){.events = events, .n = n, .dt = dt};
}

int64_t wb_timeline_next_step(const WbTimeline *tl)
{
    if (tl->next >= tl->n)
        return INT64_MAX;
    double time = tl->events[tl->next].time;
    return tl->rate > 0 ? wb_timeline_event_step(time, tl->rate)
                        : wb_timeline_event_step_dt(time, tl->dt);
}

const WbEvent *wb_timeline_due(WbTimeline *tl, int64_t step)
{
    return wb_timeline_next_step(tl) <= step ? &tl->events[tl->next++] : NULL;
}

bool wb_timeline_done(const WbTimeline *tl)
{
    return tl->next >= tl->n;
}

static int64_t fire_step_of(const WbTimeline *tl, double time)
{
    return tl->rate > 0 ? wb_timeline_event_step(time, tl->rate)
                        : wb_timeline_event_step_dt(time, tl->dt);
}

static double step_start(const WbTimeline *tl, int64_t step)
{
    return tl->rate > 0 ? wb_timeline_step_time(step, tl->rate) : (double)step * tl->dt;
}

/* The value of one ramp at time t, starting from v0 at its event. */
static double ramp_at(const WbEvent *ev, double v0, double t)
{
    double u = ev->u.set.over > 0 ? (t - ev->time) / ev->u.set.over : 1.0;
    return v0 + (ev->u.set.to - v0) * wb_timeline_ease(ev->u.set.ease, u);
}

double wb_timeline_ramp_value(const WbTimeline *tl, size_t offset, double base, int64_t step)
{
    const WbEvent *cur = NULL;  /* the ramp in force, and the value it started from */
    double v0 = base;
    for (size_t i = 0; i < tl->n; i++) {
        const WbEvent *ev = &tl->events[i];
        if (ev->type != WB_EVENT_SET || ev->u.set.offset != offset)
            continue;
        int64_t at = fire_step_of(tl, ev->time);
        if (at > step)
            break;   /* events are sorted by time, so by step */
        if (cur)
            v0 = ramp_at(cur, v0, step_start(tl, at));
        cur = ev;
    }
    return cur ? ramp_at(cur, v0, step_start(tl, step)) : base;
}

void wb_timeline_ramp_block(const WbTimeline *tl, const void *base, void *live, int64_t step)
{
    for (size_t i = 0; i < tl->n; i++) {
        const WbEvent *ev = &tl->events[i];
        if (ev->type != WB_EVENT_SET)
            continue;
        size_t off = ev->u.set.offset;
        double b;
        memcpy(&b, (const char *)base + off, sizeof b);
        double v = wb_timeline_ramp_value(tl, off, b, step);
        memcpy((char *)live + off, &v, sizeof v);
    }
}

int64_t wb_timeline_ramps_end(const WbTimeline *tl)
{
    int64_t end = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const WbEvent *ev = &tl->events[i];
        if (ev->type != WB_EVENT_SET)
            continue;
        /* the step whose start reaches time + over, plus one to be sure */
        int64_t e = fire_step_of(tl, ev->time + ev->u.set.over) + 1;
        end = e > end ? e : end;
    }
    return end;
}

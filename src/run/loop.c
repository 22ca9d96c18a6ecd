/* loop.c — the loop period, the settling pre-roll and the seam (loop.h). */
#include "run/loop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/timeline.h"
#include "sim/jiggle.h"

#define MAX_PERIODS 16         /* drivers' periods of one scene */
#define ZERO_MOTION 1e-12      /* below this a state change is rounding, in the kind's unit */
#define MAX_DURATION 3600.0    /* s, the range of output.duration (keys_scene.c) */

typedef struct Periods {
    double q[MAX_PERIODS];     /* s */
    int n;
    char what[192];            /* "orbit 1.8 s, walk 1 s" */
} Periods;

static void add_period(Periods *p, const char *name, double q)
{
    if (p->n >= MAX_PERIODS)
        return;
    p->q[p->n++] = q;
    size_t len = strlen(p->what);
    snprintf(p->what + len, sizeof p->what - len, "%s%s %.6g s", len ? ", " : "", name, q);
}

static const char *event_name(WbEventType t)
{
    static const char *const names[] = {
        [WB_EVENT_GRAB] = "grab", [WB_EVENT_RELEASE] = "release", [WB_EVENT_PIN] = "pin",
        [WB_EVENT_UNPIN] = "unpin", [WB_EVENT_CUT] = "cut", [WB_EVENT_RESEED] = "reseed",
        [WB_EVENT_SHAKE] = "shake", [WB_EVENT_CLOTH_RELEASE] = "release",
        [WB_EVENT_CLOTH_WIND] = "wind", [WB_EVENT_SET] = "set",
        [WB_EVENT_TELEPORT] = "teleport", [WB_EVENT_RESET] = "reset",
    };
    return (size_t)t < sizeof names / sizeof names[0] && names[t] ? names[t] : "event";
}

static const char *scene_file(const WbScene *s)
{
    return strcmp(s->path, "-") == 0 ? "<stdin>" : s->path;
}

/* Timeline events happen once; a loop repeats.  The first one is the
 * error, at its place in the file. */
static WbStatus check_events(const WbScene *s, WbError *err)
{
    if (!s->n_events)
        return WB_OK;
    const WbEvent *ev = &s->events[0];
    const char *hint = ev->type == WB_EVENT_GRAB
                           ? " (a grab loops by settling: render it with --until-settled, "
                             "which ends at rest)"
                           : "";
    return wb_error_at(err, WB_E_INPUT, scene_file(s), ev->src_line, ev->src_col,
                       "output.loop: the '%s' event at %.6g s happens once, so the motion "
                       "after it cannot repeat what came before; a loop needs a timeline "
                       "without events%s", event_name(ev->type), ev->time, hint);
}

static WbStatus no_driver(const WbScene *s, const char *what, WbError *err)
{
    return wb_error_at(err, WB_E_INPUT, scene_file(s), 0, 0,
                       "output.loop: nothing in this scene repeats: %s", what);
}

/* The periods of the scene's drivers; an error when there are none. */
static WbStatus driver_periods(const WbScene *s, Periods *p, WbError *err)
{
    memset(p, 0, sizeof *p);
    if (s->kind == WB_KIND_JIGGLE) {
        const WbJiggleDriveDef *d = &s->jiggle.drive;
        double c = wb_timeline_list_cycle(&d->path, (WbPoint){.x = 0.0, .y = 0.0});
        if (d->accel.n)
            return no_driver(s, "jiggle.drive.accel is keyed once and holds its last key",
                             err);
        if (d->path.n && !(c > 0))
            return no_driver(s, "jiggle.drive.path moves once and holds its last key (a path "
                                "whose last key is its start, [0, 0], repeats)", err);
        if (c > 0)
            add_period(p, "drive.path", c);
        else if (d->walk.enabled)
            add_period(p, "walk", d->walk.period > 0 ? d->walk.period
                                                     : M_PI / WB_JIGGLE_WALK_RATE);
        if (d->orbit.enabled)
            add_period(p, "orbit", d->orbit.period);
        if (!p->n)
            return no_driver(s, "the jiggle has no periodic driver (jiggle.drive.orbit or "
                                "jiggle.drive.walk)", err);
    } else if (s->kind == WB_KIND_CLOTH) {
        if (!(s->cloth.wind.strength > 0))
            return no_driver(s, "the cloth has no wind, so it only falls and settles (for a "
                                "still end, render with --until-settled)", err);
        add_period(p, "wind gust", 2.0 * M_PI / 2.1);
        add_period(p, "wind gust", 2.0 * M_PI / 0.7);
    } else if (s->kind == WB_KIND_ROPE) {
        for (size_t i = 0; i < s->rope.n_ropes; i++) {
            const WbRopeLineDef *l = &s->rope.ropes[i];
            const WbRopePathDef *path[2] = {&l->start_path, &l->end_path};
            WbPoint from[2] = {l->from, l->to};
            for (int e = 0; e < 2; e++) {
                double c = wb_timeline_list_cycle(path[e], from[e]);
                if (path[e]->n && !(c > 0))
                    return no_driver(s, "a rope anchor path moves once and holds its last "
                                        "key (a path whose last key is the rope's end point "
                                        "repeats)", err);
                if (c > 0)
                    add_period(p, "anchor path", c);
            }
        }
        if (!p->n)
            return no_driver(s, "the ropes have no periodic driver; they swing down and settle "
                                "(for a still end, render with --until-settled)", err);
    } else {
        return no_driver(s, "a photo moves only when grabbed, once; it loops by settling: "
                            "render it with --until-settled, which ends at rest", err);
    }
    return WB_OK;
}

static bool whole_multiple(double l, double q)
{
    double r = l / q;
    return fabs(r - round(r)) <= WB_LOOP_MATCH;
}

/* The least common multiple of the periods, the frame time and the step,
 * within WB_LOOP_MAX_SECONDS. */
static WbStatus common_period(const WbScene *s, Periods *p, double fps, double rate, double *l,
                              WbError *err)
{
    double q[MAX_PERIODS + 2];
    int n = 0;
    double longest = 0.0;
    for (int i = 0; i < p->n; i++)
        q[n++] = p->q[i];
    q[n++] = 1.0 / fps;
    q[n++] = 1.0 / rate;
    for (int i = 0; i < n; i++)
        longest = fmax(longest, q[i]);
    for (int64_t k = 1; (double)k * longest <= WB_LOOP_MAX_SECONDS; k++) {
        double c = (double)k * longest;
        bool all = true;
        for (int i = 0; i < n && all; i++)
            all = whole_multiple(c, q[i]);
        if (all) {
            *l = c;
            return WB_OK;
        }
    }
    return wb_error_at(err, WB_E_INPUT, scene_file(s), 0, 0,
                       "output.loop: the drivers' periods (%s), the frame time 1/%.6g s and "
                       "the step 1/%.6g s have no common multiple within %g s; make each "
                       "period a whole number of frames (e.g. jiggle.drive.orbit.period or "
                       "jiggle.drive.walk.period, or output.fps)",
                       p->what, fps, rate, WB_LOOP_MAX_SECONDS);
}

/* The run during the search: the runner and the positions it reports. */
typedef struct Probe {
    WbRunner *r;
    size_t n;                  /* values in a state */
    double *start, *now, *lo, *hi;
    const char *unit;
} Probe;

/* The positions now into pr->now (sized on the first call). */
static WbStatus sample(Probe *pr, WbError *err)
{
    WbMotion m;
    WbStatus st = pr->r->motion(pr->r->self, &m, err);
    if (st)
        return st;
    size_t n = m.n_rows ? 3 * m.n_rows : 3 * m.n_points;
    if (!pr->now) {
        pr->n = n;
        double *buf = calloc(4 * (n ? n : 1), sizeof *buf);
        if (!buf)
            return wb_error_set(err, WB_E_IO, "out of memory");
        pr->now = buf, pr->start = buf + n, pr->lo = buf + 2 * n, pr->hi = buf + 3 * n;
    }
    if (n != pr->n)
        return wb_error_set(err, WB_E_IO, "output.loop: the state changed size");
    for (size_t i = 0; i < n; i++)
        pr->now[i] = m.n_rows ? m.rows[i / 3].v[i % 3] : (double)m.points[i];
    return WB_OK;
}

/* Simulate `periods` periods from period k0 (at its start already),
 * sampling every frame; *diff: the largest change of a position from the
 * start to the end, *amp: the largest range of one over them. */
static WbStatus run_periods(Probe *pr, const WbLoopReport *rep, double fps, int64_t k0,
                            int64_t periods, double *diff, double *amp, WbError *err)
{
    WbStatus st = sample(pr, err);
    if (st)
        return st;
    memcpy(pr->start, pr->now, pr->n * sizeof *pr->now);
    memcpy(pr->lo, pr->now, pr->n * sizeof *pr->now);
    memcpy(pr->hi, pr->now, pr->n * sizeof *pr->now);
    int64_t frames = periods * rep->period_frames;
    for (int64_t f = 1; f <= frames && !st; f++) {
        int64_t step = k0 * rep->period_steps + wb_runner_step_for_frame(f, fps, pr->r->rate);
        st = pr->r->advance(pr->r->self, step, err);
        if (!st)
            st = sample(pr, err);
        for (size_t i = 0; i < pr->n && !st; i++) {
            pr->lo[i] = fmin(pr->lo[i], pr->now[i]);
            pr->hi[i] = fmax(pr->hi[i], pr->now[i]);
        }
    }
    *diff = *amp = 0.0;
    for (size_t i = 0; i < pr->n && !st; i++) {
        *diff = fmax(*diff, fabs(pr->now[i] - pr->start[i]));
        *amp = fmax(*amp, pr->hi[i] - pr->lo[i]);
    }
    return st;
}

/* Period by period until one changes the state by little enough, then
 * the loop itself. */
static WbStatus settle_and_measure(Probe *pr, WbLoopReport *rep, double fps, WbError *err)
{
    int64_t max_k = (int64_t)floor(WB_LOOP_MAX_SECONDS / rep->period);
    int64_t k = 0;
    WbStatus st = WB_OK;
    for (; k < max_k && !st; k++) {
        double diff, amp;
        st = run_periods(pr, rep, fps, k, 1, &diff, &amp, err);
        if (!st && (diff <= WB_LOOP_SETTLE_SHARE * amp || diff <= ZERO_MOTION)) {
            rep->settled = true;
            k++;
            break;
        }
    }
    if (st)
        return st;
    rep->preroll_periods = k;
    return run_periods(pr, rep, fps, k, rep->periods, &rep->seam, &rep->amplitude, err);
}

WbStatus wb_loop_resolve(WbScene *scene, const WbRunnerOptions *opt, WbLoopReport *rep,
                         WbError *err)
{
    memset(rep, 0, sizeof *rep);
    WbOutputDef *out = &scene->output;
    if (!out->loop)
        return WB_OK;
    Periods p;
    WbStatus st = check_events(scene, err);
    if (!st)
        st = driver_periods(scene, &p, err);
    if (st)
        return st;
    /* the search starts from frame 0 of the scene, whatever it said */
    out->preroll = 0.0;
    WbRunner r;
    st = wb_runner_create(&r, scene, opt, err);
    if (st)
        return st;
    double l = 0.0;
    st = common_period(scene, &p, out->fps, r.rate, &l, err);
    Probe pr = {.r = &r};
    if (!st && !r.motion)
        st = no_driver(scene, "this kind reports no motion to compare", err);
    if (!st) {
        rep->active = true;
        rep->periods = out->loop_periods > 0 ? out->loop_periods : 1;
        rep->period_frames = llround(l * out->fps);
        rep->period_steps = llround(l * r.rate);
        rep->period = (double)rep->period_steps / r.rate;
        rep->unit = scene->kind == WB_KIND_JIGGLE ? "units" : "m";
        snprintf(rep->drivers, sizeof rep->drivers, "%s", p.what);
        /* output.duration's own limit holds for the loop too */
        if ((double)rep->periods * rep->period > MAX_DURATION)
            st = wb_error_at(err, WB_E_INPUT, scene_file(scene), 0, 0,
                             "output.loop: %d periods of %.6g s last over %g s (the limit of "
                             "output.duration): lower output.loop_periods", rep->periods,
                             rep->period, MAX_DURATION);
        if (!st)
            st = settle_and_measure(&pr, rep, out->fps, err);
    }
    free(pr.now);
    r.destroy(r.self);
    if (st)
        return st;
    /* frame f shows step preroll_periods·period_steps + floor(f·rate/fps) */
    out->preroll = (double)(rep->preroll_periods * rep->period_steps) / r.rate;
    out->duration = (double)((int64_t)rep->periods * rep->period_frames) / out->fps;
    return WB_OK;
}

double wb_loop_seam_share(const WbLoopReport *rep)
{
    return rep->amplitude > 0 ? rep->seam / rep->amplitude : 0.0;
}

bool wb_loop_seam_visible(const WbLoopReport *rep)
{
    return rep->active && wb_loop_seam_share(rep) > WB_LOOP_SEAM_SHARE;
}

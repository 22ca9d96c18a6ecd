/* runner.c — choosing a kind's runner, and the frame clock they share. */
#include "cli/runner.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int64_t wb_runner_step_for_frame(int64_t f, double fps, double rate)
{
    /* long double keeps f·rate/fps exact enough that frame times landing on
     * a step boundary (e.g. 240/30 = 8 steps a frame) never round down. */
    long double t = (long double)f * (long double)rate / (long double)fps;
    return (int64_t)floorl(t + 1e-9L);
}

int64_t wb_runner_frame_count(const WbOutputDef *out)
{
    int64_t n = (int64_t)ceil(out->duration * out->fps - 1e-9);
    return n < 1 ? 1 : n;
}

WbStatus wb_runner_create(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt,
                          WbError *err)
{
    WbStatus st;
    switch (scene->kind) {
    case WB_KIND_PHOTO: st = wb_runner_photo(r, scene, opt, err); break;
    case WB_KIND_ROPE: st = wb_runner_rope(r, scene, opt, err); break;
    case WB_KIND_JIGGLE: st = wb_runner_jiggle(r, scene, opt, err); break;
    case WB_KIND_CLOTH: st = wb_runner_cloth(r, scene, opt, err); break;
    default:
        return wb_error_at(err, WB_E_INPUT, scene->path, 0, 0, "unknown scene kind %d",
                           (int)scene->kind);
    }
    /* Every view clears to the background with its alpha ("#rrggbbaa",
     * [r, g, b, a]), so a see-through background is meaningful alpha just
     * as `transparent` is: alpha-capable outputs must keep it rather than
     * drop it. */
    if (!st && scene->output.background.a < 1.0)
        r->alpha = true;
    return st;
}

int64_t wb_runner_event_step(double time, double dt)
{
    /* the 1e-9 keeps an event that lands on a step boundary (0.5 s at
     * 1/240 s steps) on that step despite the rounding of time/dt */
    double n = ceil(time / dt - 1e-9);
    return n < 0 ? 0 : (int64_t)n;
}

double wb_runner_ease(WbEase e, double u)
{
    switch (e) {
    case WB_EASE_IN: return u * u * u;
    case WB_EASE_OUT: return 1.0 - (1.0 - u) * (1.0 - u) * (1.0 - u);
    case WB_EASE_IN_OUT: return u * u * (3.0 - 2.0 * u);
    case WB_EASE_STEP: return u >= 1.0 ? 1.0 : 0.0;
    case WB_EASE_LINEAR: break;
    }
    return u;
}

void wb_runner_keys_at(const WbKeyList *keys, WbPoint start, double t, double out[2])
{
    double t0 = 0.0, x0 = start.x, y0 = start.y;
    for (int i = 0; i < keys->n; i++) {
        const WbKey *k = &keys->keys[i];
        if (t < k->time) {
            double u = k->time > t0 ? (t - t0) / (k->time - t0) : 1.0;
            double e = wb_runner_ease(k->ease, u < 0 ? 0 : u);
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

void wb_runner_output_size(const WbOutputDef *out, double aspect, int *w, int *h)
{
    *w = out->width;
    *h = out->height;
    if (!*w && !*h)
        *w = 640;
    if (!*w)
        *w = 2 * (int)fmax(1.0, round(*h / aspect / 2.0));
    if (!*h)
        *h = 2 * (int)fmax(1.0, round(*w * aspect / 2.0));
}

WbStatus wb_runner_at_key(WbStatus st, const WbScene *scene, const WbPlace *at, const char *key,
                          WbError *err)
{
    if (st != WB_E_INPUT || at->line <= 0 || err->line > 0)
        return st;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    const char *file = at->set ? "--set" : strcmp(scene->path, "-") == 0 ? "<stdin>" : scene->path;
    return wb_error_at(err, st, file, at->line, at->col, "'%s': %s", key, msg);
}

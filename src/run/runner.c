/* runner.c — choosing a kind's runner, and the frame clock they share. */
#include "run/runner.h"

#include <math.h>

#include "core/frames.h"
#include "io/image_load.h"
#include "io/image_probe.h"
#include <stdio.h>
#include <string.h>

int64_t wb_runner_step_for_frame(int64_t f, double fps, double rate)
{
    return wb_frame_step(f, fps, rate, 0.0);
}

int64_t wb_runner_steps(double n)
{
    return wb_steps(n);
}

int64_t wb_runner_frame_step(const WbOutputDef *out, int64_t f, double rate)
{
    return wb_frame_step(f, out->fps, rate, out->preroll);
}

int64_t wb_runner_frame_count(const WbOutputDef *out)
{
    int64_t n = wb_runner_steps(ceil(out->duration * out->fps - 1e-9));
    return n < 1 ? 1 : n;
}

WbStatus wb_runner_create(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt,
                          WbError *err)
{
    int64_t max_events = opt->max_events > 0 ? opt->max_events : WB_MAX_EVENTS;
    if (scene->n_events > (uint64_t)max_events)
        return wb_error_at(err, WB_E_INPUT, scene->path, 0, 0,
                           "'timeline' holds %zu events, over the limit of %lld "
                           "(--max-events raises it)",
                           scene->n_events, (long long)max_events);
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
    wb_runner_scale_size(out, w, h);
}

void wb_runner_scale_size(const WbOutputDef *out, int *w, int *h)
{
    if (out->scale <= 0 || out->scale == 1.0)
        return;
    *w = 2 * (int)fmax(1.0, round(*w * out->scale / 2.0));
    *h = 2 * (int)fmax(1.0, round(*h * out->scale / 2.0));
}

WbStatus wb_runner_check_pixels(const char *path, const WbRunnerOptions *opt, WbError *err)
{
    int64_t w, h, limit = opt->max_pixels > 0 ? opt->max_pixels : WB_MAX_PIXELS;
    /* The header when wobble reads it, else what libav states (a decoder
     * stopped before it allocates the picture). */
    if (!wb_image_header_size(path, &w, &h) && !wb_image_probe_size(path, &w, &h))
        return WB_OK;
    if (w <= 0 || h <= 0 || w <= limit / h) /* (w * h may not fit in 64 bits) */
        return WB_OK;
    return wb_error_set(err, WB_E_INPUT,
                        "image '%s' is %lldx%lld (%.0f pixels), over the limit of %lld pixels "
                        "(--max-pixels raises it)",
                        path, (long long)w, (long long)h, (double)w * (double)h, (long long)limit);
}

bool wb_runner_stopped(const volatile sig_atomic_t *stop, WbError *err)
{
    if (!stop || !*stop)
        return false;
    wb_error_set(err, WB_E_INTERRUPTED, "interrupted while simulating");
    return true;
}

WbStatus wb_runner_at_key(WbStatus st, const WbScene *scene, const WbPlace *at, const char *key,
                          WbError *err)
{
    if (st != WB_E_INPUT || at->line <= 0 || err->line > 0)
        return st;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    const char *file = at->set ? "--set" : strcmp(scene->path, "-") == 0 ? "<stdin>" : scene->path;
    wb_error_at(err, st, file, at->line, at->col, "'%s': %s", key, msg);
    if (at->source[0])
        wb_error_set_source(err, at->source, strlen(at->source));
    return st;
}

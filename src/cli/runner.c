/* runner.c — choosing a kind's runner, and the frame clock they share. */
#include "cli/runner.h"

#include <math.h>

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
    switch (scene->kind) {
    case WB_KIND_PHOTO:
        return wb_runner_photo(r, scene, opt, err);
    case WB_KIND_ROPE:
        return wb_runner_rope(r, scene, opt, err);
    case WB_KIND_JIGGLE:
        return wb_runner_jiggle(r, scene, opt, err);
    case WB_KIND_CLOTH:
        return wb_runner_cloth(r, scene, opt, err);
    }
    return wb_error_at(err, WB_E_INPUT, scene->path, 0, 0, "unknown scene kind %d",
                       (int)scene->kind);
}

/* cmd_bake.c — `wobble bake SCENE -o STATE`: simulate the whole scene
 * without drawing and keep its state every K frames (run/snapshot.h), so
 * `render --state STATE --frames A:B` starts near A instead of at 0. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/outpath.h"
#include "run/loop.h"
#include "run/runner.h"
#include "run/snapshot.h"
#include "scene/scene.h"
#include "scene/scene_load.h"

static void progress(void *ctx, int64_t f, int64_t frames)
{
    (void)ctx;
    fprintf(stderr, "\rbake: frame %lld/%lld   ", (long long)f, (long long)frames);
}

WbStatus wb_cmd_bake(const WbBakeOptions *o, WbError *err)
{
    WbScene scene;
    WbRunner run;
    bool have_runner = false;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    WbStatus st = wb_scene_load_from(o->r.scene, o->r.sets, o->r.set_option, o->r.n_sets, &scene,
                                     err);
    if (st)
        return st;
    WbRunnerOptions ro = {
        .aa = o->r.aa, .max_pixels = o->r.max_pixels, .max_events = o->r.max_events};
    WbLoopReport loop; /* output.loop: the loop's pre-roll, as render has it */
    st = wb_loop_resolve(&scene, &ro, &loop, err);
    WbInputFile in[WB_CLI_MAX_INPUTS];
    size_t n_in = wb_cli_run_inputs(&scene, o->r.scene, NULL, in);
    if (!st)
        st = wb_outpath_spare_inputs("-o", o->r.output, false, 0, 0, in, n_in, err);
    if (!st)
        st = wb_outpath_check(o->r.output, err);
    if (!st)
        st = wb_runner_create(&run, &scene, &ro, err);
    have_runner = st == WB_OK;
    WbBakeResult res = {0};
    if (!st && !o->r.dry_run) {
        WbBake b = {
            .scene = &scene,
            .runner = &run,
            .path = o->r.output,
            .every = wb_snapshot_every(&scene, o->every),
            .progress = !o->r.quiet && isatty(STDERR_FILENO) ? progress : NULL,
            .stop = &wb_cli_stop,
        };
        WbCliSignals old;
        wb_cli_signals_catch(&old);
        st = wb_bake_run(&b, &res, err);
        wb_cli_signals_restore(&old);
        if (b.progress)
            fputc('\n', stderr);
        if (!st && res.interrupted)
            st = wb_error_set(err, WB_E_INTERRUPTED, "bake stopped; '%s' was not written",
                              o->r.output);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (!st && o->r.json) {
            printf("{\"state\": \"%s\", \"frames\": %lld, \"every\": %lld, \"snapshots\": %lld, "
                   "\"snapshot_bytes\": %llu, \"end_frame\": %lld, \"settled_at\": ",
                   o->r.output, (long long)res.frames, (long long)b.every,
                   (long long)res.snapshots, (unsigned long long)res.bytes,
                   (long long)res.end_frame);
            if (res.settled_at >= 0)
                printf("%.6f", res.settled_at);
            else
                fputs("null", stdout);
            printf(", \"seconds\": %.6f}\n",
                   (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        }
    }
    if (have_runner)
        run.destroy(run.self);
    wb_scene_free(&scene);
    return st;
}

void wb_cli_help_bake(FILE *f)
{
    fputs("Usage: wobble bake SCENE -o STATE [--every K] [OPTIONS]\n"
          "Simulate SCENE's whole timeline without drawing and write its solver state every\n"
          "K frames to STATE (format: wobble(1), STATE FORMAT).  'wobble render SCENE --state\n"
          "STATE --frames A:B' then starts from the last snapshot at or before A and gives\n"
          "the same frames as a full render; 'wobble export STATE' writes its motion out.\n"
          "\n"
          "  -o, --output STATE      the state file to write (required; written under a\n"
          "                          temporary name and renamed when complete)\n"
          "      --every K           frames between snapshots (default: 2 s of frames)\n"
          "      --set KEY=VALUE     override a scene key; repeatable\n"
          "      --fps N, --duration S, --size WxH, --seed N, --until-settled\n"
          "                          as for render; render and export must be given the same\n"
          "                          ones (the state is tied to the effective scene)\n"
          "      --max-pixels N, --max-events N\n"
          "                          limits on the inputs, as for render\n"
          "      --json              print a JSON summary on stdout when done\n"
          "  -q, --quiet             no progress line (it is shown only on a terminal)\n"
          "  -h, --help              show this help\n", f);
}

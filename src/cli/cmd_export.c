/* cmd_export.c — `wobble export SCENE -o BASE`: the scene's motion for
 * other tools (run/export.h): cloth and 3D jiggle meshes as an OBJ and a
 * PC2 point cache (Blender's Mesh Cache modifier), rope nodes and bone
 * offsets as CSV.  With --state the range starts from the nearest
 * snapshot. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "io/outpath.h"
#include "run/export.h"
#include "run/loop.h"
#include "run/runner.h"
#include "run/snapshot.h"
#include "scene/scene.h"
#include "scene/scene_load.h"

/* None of the files may be the scene or one of its inputs. */
static WbStatus check_outputs(const WbScene *s, const WbRenderOptions *r, WbError *err)
{
    static const char *const ext[] = {".obj", ".pc2", ".csv"};
    WbInputFile in[WB_CLI_MAX_INPUTS];
    size_t n_in = wb_cli_run_inputs(s, r->scene, r->state, in);
    WbStatus st = WB_OK;
    for (size_t e = 0; e < 3 && !st; e++) {
        char out[1100];
        snprintf(out, sizeof out, "%s%s", r->output, ext[e]);
        st = wb_outpath_spare_inputs("-o", out, false, 0, 0, in, n_in, err);
    }
    return st;
}

WbStatus wb_cmd_export(const WbExportOptions *o, WbError *err)
{
    const WbRenderOptions *r = &o->r;
    WbScene scene;
    WbRunner run;
    bool have_runner = false;
    WbStatus st = wb_scene_load_from(r->scene, r->sets, r->set_option, r->n_sets, &scene, err);
    if (st)
        return st;
    WbRunnerOptions ro = {.aa = 1, .max_pixels = o->r.max_pixels, .max_events = o->r.max_events};
    WbLoopReport loop; /* output.loop: the loop's frames, as render has them */
    st = wb_loop_resolve(&scene, &ro, &loop, err);
    int64_t total = wb_runner_frame_count(&scene.output);
    int64_t first = r->frame_a, end = r->frame_b >= 0 && r->frame_b < total ? r->frame_b : total;
    if (!st && first >= end)
        st = wb_error_set(err, WB_E_INPUT, "--frames %lld: the scene has only %lld frames",
                          (long long)first, (long long)total);
    if (!st)
        st = check_outputs(&scene, r, err);
    if (!st) {
        st = wb_runner_create(&run, &scene, &ro, err);
        have_runner = st == WB_OK;
    }
    if (!st && r->state) {
        int64_t from;
        st = wb_snapshot_restore(&run, &scene, r->state, first, &from, err);
    }
    WbExportResult res = {0};
    if (!st) {
        WbExport e = {.scene = &scene, .runner = &run, .base = r->output, .first = first,
                      .end = end, .stop = &wb_cli_stop};
        WbCliSignals old;
        wb_cli_signals_catch(&old);
        st = wb_export_run(&e, &res, err);
        wb_cli_signals_restore(&old);
        if (!st && res.interrupted)
            st = wb_error_set(err, WB_E_INTERRUPTED, "export stopped; nothing was written");
    }
    if (!st && r->json)
        printf("{\"base\": \"%s\", \"frames\": %lld, \"first_frame\": %lld, \"points\": %zu, "
               "\"rows\": %zu}\n", r->output, (long long)res.frames, (long long)first,
               res.points, res.rows);
    if (have_runner)
        run.destroy(run.self);
    wb_scene_free(&scene);
    return st;
}

void wb_cli_help_export(FILE *f)
{
    fputs("Usage: wobble export SCENE -o BASE [--frames A:B] [--state STATE] [OPTIONS]\n"
          "Simulate SCENE (no drawing) and write its motion for other tools:\n"
          "  BASE.obj   cloth and 3D jiggle: the mesh at the first frame of the range\n"
          "  BASE.pc2   its vertices at every frame (a point cache, e.g. for Blender's\n"
          "             Mesh Cache modifier), start frame A, one sample per frame\n"
          "  BASE.csv   rope: frame,time,rope,node,x,y,z per node; jiggle:\n"
          "             frame,time,bone,x,y,z (each bone's offset from rest)\n"
          "\n"
          "  -o, --output BASE       where the files go (required)\n"
          "      --frames A:B        export frames A..B-1 only (default: every frame)\n"
          "      --state STATE       start from STATE's last snapshot at or before A\n"
          "      --set KEY=VALUE     override a scene key; repeatable\n"
          "      --fps N, --duration S, --size WxH, --seed N, --until-settled,\n"
          "      --max-pixels N, --max-events N\n"
          "                          as for render\n"
          "      --json              print a JSON summary on stdout when done\n"
          "  -q, --quiet             accepted for symmetry with render\n"
          "  -h, --help              show this help\n", f);
}

/* cmd_info.c — `wobble info`: validate a scene and print the effective scene
 * (every default filled in) as YAML that loads back to the same scene; or,
 * with --keys, every documented scene key. */
#include <stdio.h>

#include "cli/cli.h"
#include "io/image_seq.h"
#include "run/loop.h"
#include "run/runner.h"
#include "scene/scene.h"
#include "scene/scene_load.h"

static void print_key_tsv(const char *path, const char *type, const char *def, const char *doc,
                          void *ud)
{
    fprintf((FILE *)ud, "%s\t%s\t%s\t%s\n", path, type, def ? def : "", doc);
}

static void print_key(const char *path, const char *type, const char *def, const char *doc,
                      void *ud)
{
    FILE *f = ud;
    fprintf(f, "%-30s %-10s %-12s %s\n", path, type, def && def[0] ? def : "-", doc);
}

WbStatus wb_cmd_info(const WbInfoOptions *o, WbError *err)
{
    if (o->keys) {
        if (o->tsv) {
            printf("key\ttype\tdefault\tmeaning\n");
            wb_scene_keys(print_key_tsv, stdout);
        } else {
            printf("%-30s %-10s %-12s %s\n", "KEY", "TYPE", "DEFAULT", "MEANING");
            wb_scene_keys(print_key, stdout);
        }
        return WB_OK;
    }
    WbScene scene;
    WbStatus st = wb_scene_load(o->scene, o->sets, o->n_sets, &scene, err);
    if (st)
        return st;
    /* The scene is only as good as the files it names: read them as render
     * would (a missing photo is the same error here), then let them go. */
    WbRunner runner;
    WbRunnerOptions ro = {.aa = 1, .max_pixels = o->max_pixels, .max_events = o->max_events};
    /* output.loop: print the loop's pre-roll and length */
    WbLoopReport loop;
    st = wb_loop_resolve(&scene, &ro, &loop, err);
    if (!st)
        st = wb_runner_create(&runner, &scene, &ro, err);
    if (st) {
        wb_scene_free(&scene);
        return st;
    }
    runner.destroy(runner.self);
    /* A photo with alpha under no background given shows through: that is
     * the effective background, and printed so it loads back the same. */
    if (scene.kind == WB_KIND_PHOTO && runner.alpha && scene.output.background.a >= 1.0)
        scene.output.transparent = true;
    wb_scene_print(&scene, stdout);
    /* An animated photo: what it plays, as a comment the scene ignores. */
    WbImageSeqInfo seq;
    if (scene.kind == WB_KIND_PHOTO && !wb_image_seq_probe(scene.photo.image, &seq, NULL) &&
        seq.frames > 1)
        printf("# photo.image: %lld frames at %.6g fps, %.6g s a play, looped\n",
               (long long)seq.frames, seq.fps, seq.duration);
    wb_scene_free(&scene);
    return WB_OK;
}

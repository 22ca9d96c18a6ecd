/* cmd_check.c — `wobble check`: golden-frame regression tests.
 *
 * Renders the chosen frames through render's frame loop (run/frame_loop.c:
 * the same clock, range and interrupt handling, the same rasterizer), but
 * hands each to the golden compare instead of an encoder (compressed video
 * is not reproducible enough to compare): DIR/NNNN.png.  The whole range is
 * checked, settled or not (output.until_settled does not cut it).  A failing frame leaves
 * NNNN_actual.png and NNNN_diff.png next to its golden; a passing frame
 * removes stale ones.  --update writes missing goldens and refreshes those
 * that changed, and says which.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/compare.h"
#include "io/png.h"
#include "run/frame_loop.h"
#include "run/loop.h"
#include "run/runner.h"
#include "scene/scene_load.h"

typedef struct CheckTally {
    long checked, passed, failed, missing, created, updated;
} CheckTally;

/* What the frame loop's writer hands each frame to (check_write). */
typedef struct CheckRun {
    const WbCheckOptions *o;
    bool alpha;                /* the frames carry meaningful alpha */
    CheckTally t;
    bool first_json;           /* no frame's JSON object printed yet */
} CheckRun;

static void frame_path(char *buf, size_t n, const char *dir, int64_t f, const char *suffix)
{
    snprintf(buf, n, "%s/%04lld%s.png", dir, (long long)f, suffix);
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static void json_number(double v)
{
    if (isfinite(v))
        printf("%.6g", v);
    else
        printf("null");
}

/* Compare (or update) one frame; fills the tally and prints its line. */
static WbStatus check_frame(const WbCheckOptions *o, int64_t f, const WbImage *frame, bool alpha,
                            CheckTally *t, bool *first_json, WbError *err)
{
    char golden[WB_PATH_MAX + 32], actual[WB_PATH_MAX + 32], diffp[WB_PATH_MAX + 32];
    frame_path(golden, sizeof golden, o->golden, f, "");
    frame_path(actual, sizeof actual, o->golden, f, "_actual");
    frame_path(diffp, sizeof diffp, o->golden, f, "_diff");
    WbCompareLimits lim = {.threshold = o->tolerance, .max_share = o->max_share, .min_psnr = o->min_psnr};
    WbCompareResult res = {.psnr = INFINITY, .pass = false};
    const char *state;
    t->checked++;

    WbImage g = {0};
    bool have = exists(golden);
    WbStatus st = have ? wb_png_read(golden, &g, err) : WB_OK;
    if (st)
        return st;
    if (have && (g.w != frame->w || g.h != frame->h)) {
        res.pass = false;
        res.max_diff = 255;
        res.share = 1;
        state = "size";
    } else if (have) {
        wb_compare(&g, frame, &lim, &res);
        state = res.pass ? "pass" : "fail";
    } else {
        state = "missing";
    }

    if (o->update) {
        if (!have || !res.pass || res.max_diff > 0) {
            st = wb_png_write(golden, frame, alpha, err);
            if (st)
                goto out;
            fprintf(stderr, "%s %s\n", have ? "updated" : "created", golden);
            if (have) t->updated++; else t->created++;
        }
        unlink(actual);
        unlink(diffp);
        t->passed++;
        state = have ? (res.max_diff > 0 ? "updated" : "pass") : "created";
    } else if (res.pass) {
        unlink(actual);
        unlink(diffp);
        t->passed++;
    } else if (!have) {
        t->missing++;
        t->failed++;
        st = wb_png_write(actual, frame, alpha, err);
        if (st)
            goto out;
        fprintf(stderr, "frame %04lld: no golden %s (wrote %s; run with --update to accept it)\n",
                (long long)f, golden, actual);
    } else {
        t->failed++;
        st = wb_png_write(actual, frame, alpha, err);
        if (!st && g.w == frame->w && g.h == frame->h) {
            WbImage d;
            st = wb_compare_diff_image(&g, frame, o->tolerance, &d, err);
            if (!st) {
                st = wb_png_write(diffp, &d, false, err);
                wb_image_free(&d);
            }
        }
        if (st)
            goto out;
        if (g.w != frame->w || g.h != frame->h)
            fprintf(stderr, "frame %04lld: size %dx%d, golden is %dx%d -> %s\n", (long long)f,
                    frame->w, frame->h, g.w, g.h, actual);
        else
            fprintf(stderr,
                    "frame %04lld: %ld pixels (%.3f%%) differ by more than %d, max %d, PSNR %.2f dB"
                    " -> %s, %s\n",
                    (long long)f, res.differing, 100.0 * res.share, o->tolerance, res.max_diff,
                    res.psnr, actual, diffp);
    }
    if (o->r.json) {
        printf("%s\n    {\"frame\": %lld, \"result\": \"%s\", \"max_diff\": %d, \"share\": ",
               *first_json ? "" : ",", (long long)f, state, res.max_diff);
        json_number(res.share);
        printf(", \"psnr\": ");
        json_number(res.psnr);
        printf("}");
        *first_json = false;
    }
out:
    wb_image_free(&g);
    return st;
}

/* WbFrameWrite: frame f against its golden (on the loop's writer thread,
 * in frame order). */
static WbStatus check_write(void *self, int64_t f, const WbImage *frame, const WbDamage *damage,
                            WbError *err)
{
    CheckRun *c = self;
    (void)damage;
    return check_frame(c->o, f, frame, c->alpha, &c->t, &c->first_json, err);
}

/* Frames [a, b), every o->every-th, through the frame loop into check_write. */
static WbStatus check_frames(const WbCheckOptions *o, const WbScene *scene, const WbRunner *runner,
                             WbPool *pool, int64_t a, int64_t b, CheckRun *c, bool *interrupted,
                             WbError *err)
{
    WbImage frames[2] = {{0}};
    WbDamage damage[2] = {{0}};
    WbOutputDef out = scene->output;
    out.until_settled = false;
    WbStatus st = WB_OK;
    for (int i = 0; i < 2 && !st; i++)
        st = wb_image_alloc(&frames[i], runner->width, runner->height, err);
    if (!st) {
        WbFrameLoop fl = {
            .runner = runner,
            .pool = pool,
            .write = check_write,
            .write_self = c,
            .frames = frames,
            .damage = damage,
            .output = &out,
            .first = a,
            .end = b,
            .every = o->every,
            .stop = &wb_cli_stop,
        };
        WbFrameLoopResult res;
        WbCliSignals old_signals;
        wb_cli_signals_catch(&old_signals);
        st = wb_frame_loop_run(&fl, &res, err);
        wb_cli_signals_restore(&old_signals);
        *interrupted = res.interrupted;
    }
    for (int i = 0; i < 2; i++) {
        wb_image_free(&frames[i]);
        wb_damage_free(&damage[i]);
    }
    return st;
}

WbStatus wb_cmd_check(const WbCheckOptions *o, WbError *err)
{
    WbScene scene;
    WbRunner runner;
    WbPool *pool = NULL;
    bool have_runner = false, interrupted = false;
    CheckRun c = {.o = o, .first_json = true};

    WbStatus st =
        wb_scene_load_from(o->r.scene, o->r.sets, o->r.set_option, o->r.n_sets, &scene, err);
    if (st)
        return st;
    WbRunnerOptions ro = {
        .aa = o->r.aa, .max_pixels = o->r.max_pixels, .max_events = o->r.max_events};
    WbLoopReport loop; /* output.loop: the loop's frames, as render has them */
    st = wb_loop_resolve(&scene, &ro, &loop, err);
    if (!st)
        st = wb_runner_create(&runner, &scene, &ro, err);
    have_runner = st == WB_OK;
    struct stat sb;
    if (!st && stat(o->golden, &sb) != 0) {
        if (!o->update)
            st = wb_error_set(err, WB_E_DIFF, "no golden folder '%s': %s (run with --update to create it)",
                              o->golden, strerror(errno));
        else if (mkdir(o->golden, 0777) != 0)
            st = wb_error_set(err, WB_E_IO, "cannot create golden folder '%s': %s", o->golden,
                              strerror(errno));
    }
    int64_t total = wb_runner_frame_count(&scene.output);
    /* B is cut to the scene's frames as render cuts it: no golden for a
     * frame past output.duration. */
    int64_t a = o->r.frame_a, b = o->r.frame_b >= 0 && o->r.frame_b < total ? o->r.frame_b : total;
    if (!st && a >= b)
        st = wb_error_set(err, WB_E_INPUT, "--frames: the scene has only %lld frames", (long long)total);
    if (!st)
        st = wb_pool_create(&pool, o->r.threads > 0 ? o->r.threads
                                                    : (int)sysconf(_SC_NPROCESSORS_ONLN), err);
    if (!st && o->r.json)
        printf("{\"scene\": \"%s\", \"golden\": \"%s\", \"tolerance\": %d, \"max_share\": %.6g, "
               "\"min_psnr\": %.6g, \"frames\": [",
               o->r.scene, o->golden, o->tolerance, o->max_share, o->min_psnr);
    if (!st) {
        c.alpha = runner.alpha;
        st = check_frames(o, &scene, &runner, pool, a, b, &c, &interrupted, err);
    }
    if (o->r.json && !c.first_json)
        printf("\n  ");
    if (o->r.json)
        printf("], \"checked\": %ld, \"passed\": %ld, \"failed\": %ld, \"missing\": %ld, "
               "\"created\": %ld, \"updated\": %ld}\n",
               c.t.checked, c.t.passed, c.t.failed, c.t.missing, c.t.created, c.t.updated);
    if (!st && !o->r.quiet)
        fprintf(stderr, "check: %ld frames, %ld passed, %ld failed%s\n", c.t.checked, c.t.passed,
                c.t.failed, o->update ? " (goldens updated)" : "");
    if (pool)
        wb_pool_destroy(pool);
    if (have_runner)
        runner.destroy(runner.self);
    wb_scene_free(&scene);
    if (!st && interrupted)
        st = wb_error_set(err, WB_E_INTERRUPTED, "%ld frames checked, %ld of them differ from the "
                          "goldens in '%s'", c.t.checked, c.t.failed, o->golden);
    else if (!st && c.t.failed)
        st = wb_error_set(err, WB_E_DIFF, "%ld of %ld frames differ from the goldens in '%s'",
                          c.t.failed, c.t.checked, o->golden);
    return st;
}

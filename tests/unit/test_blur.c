/* test_blur.c — motion blur (run/blur.c) against an independent
 * accumulation: with shutter 1 and N samples, frame f must be the average,
 * in linear light, of frames N·f − N+1 … N·f of the same scene rendered
 * without blur at N times the frame rate; averaged here in double with the
 * sRGB formula (no table, no float sums), within 1 in 255 per channel. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/frame_loop.h"
#include "run/runner.h"
#include "scene/scene.h"
#include "scene/scene_load.h"

#define MAX_FRAMES 64

typedef struct Frames {
    int n;
    WbImage img[MAX_FRAMES];
} Frames;

static WbStatus keep(void *self, int64_t frame, const WbImage *img, const WbDamage *d,
                     WbError *err)
{
    (void)frame;
    (void)d;
    Frames *fr = self;
    cr_assert_lt(fr->n, MAX_FRAMES);
    WbImage *c = &fr->img[fr->n++];
    WbStatus st = wb_image_alloc(c, img->w, img->h, err);
    for (int y = 0; !st && y < img->h; y++)
        memcpy(wb_image_row(c, y), wb_image_row(img, y), 4 * (size_t)img->w);
    return st;
}

static void frames_free(Frames *fr)
{
    for (int i = 0; i < fr->n; i++)
        wb_image_free(&fr->img[i]);
    fr->n = 0;
}

/* Render frames [first, end) of `path` with the --set overrides on a pool
 * of `threads`, into *fr. */
static void render(const char *path, const char *const *sets, size_t n_sets, int threads,
                   int64_t first, int64_t end, Frames *fr)
{
    WbError e;
    wb_error_clear(&e);
    WbScene s;
    cr_assert_eq(wb_scene_load(path, sets, n_sets, &s, &e), WB_OK, "%s", e.msg);
    WbRunner r;
    WbRunnerOptions opt = {.aa = 4};
    cr_assert_eq(wb_runner_create(&r, &s, &opt, &e), WB_OK, "%s", e.msg);
    WbPool *pool;
    cr_assert_eq(wb_pool_create(&pool, threads, &e), WB_OK);
    WbImage bufs[2];
    WbDamage dmg[2] = {{0}};
    for (int i = 0; i < 2; i++)
        cr_assert_eq(wb_image_alloc(&bufs[i], r.width, r.height, &e), WB_OK);
    WbFrameLoop fl = {.runner = &r, .pool = pool, .write = keep, .write_self = fr,
                      .frames = bufs, .damage = dmg, .output = &s.output,
                      .first = first, .end = end};
    WbFrameLoopResult res;
    cr_assert_eq(wb_frame_loop_run(&fl, &res, &e), WB_OK, "%s", e.msg);
    for (int i = 0; i < 2; i++) {
        wb_image_free(&bufs[i]);
        wb_damage_free(&dmg[i]);
    }
    wb_pool_destroy(pool);
    r.destroy(r.self);
    wb_scene_free(&s);
}

static double to_linear(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double to_srgb(double l)
{
    return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

/* The largest channel difference between blurred frame b and the
 * premultiplied linear average of the n sharp frames sharp[0..n). */
static int worst_difference(const WbImage *b, const WbImage *sharp, int n)
{
    int worst = 0;
    for (int y = 0; y < b->h; y++)
        for (int x = 0; x < b->w; x++) {
            double sum[4] = {0};
            for (int k = 0; k < n; k++) {
                const uint8_t *p = wb_image_row(&sharp[k], y) + 4 * x;
                double a = p[3] / 255.0;
                for (int c = 0; c < 3; c++)
                    sum[c] += a * to_linear(p[c] / 255.0);
                sum[3] += a;
            }
            const uint8_t *q = wb_image_row(b, y) + 4 * x;
            int want[4] = {0, 0, 0, (int)lround(255.0 * sum[3] / n)};
            for (int c = 0; c < 3 && sum[3] > 0; c++)
                want[c] = (int)lround(255.0 * to_srgb(sum[c] / sum[3]));
            for (int c = 0; c < 4; c++) {
                int d = abs(want[c] - q[c]);
                worst = d > worst ? d : worst;
            }
        }
    return worst;
}

/* Blur with shutter 1 against the N·fps sharp frames, frames [a, b); and
 * the blurred frames differ from the sharp ones (the scene moves). */
static void check_against_fast_render(const char *path, const char *size, int n, int64_t a,
                                      int64_t b)
{
    char samples[64], fps[64];
    WbError e;
    WbScene s;
    cr_assert_eq(wb_scene_load(path, NULL, 0, &s, &e), WB_OK, "%s", e.msg);
    double base_fps = s.output.fps;
    wb_scene_free(&s);
    snprintf(samples, sizeof samples, "output.motion_blur.samples=%d", n);
    snprintf(fps, sizeof fps, "output.fps=%.17g", base_fps * n);
    const char *blurred[] = {size, samples, "output.motion_blur.shutter=1"};
    const char *fast[] = {size, fps};
    Frames fb = {0}, ff = {0}, fs = {0};
    render(path, blurred, 3, 2, a, b, &fb);
    render(path, fast, 2, 1, n * a - (n - 1), n * b - (n - 1), &ff);
    render(path, blurred, 1, 1, a, b, &fs); /* the sharp frames at the base rate */
    cr_assert_eq(fb.n, b - a);
    cr_assert_eq(ff.n, n * (b - a));
    int moved = 0;
    for (int64_t f = 0; f < b - a; f++) {
        int d = worst_difference(&fb.img[f], &ff.img[n * f], n);
        cr_expect_leq(d, 1, "%s frame %lld: %d levels from the average", path,
                      (long long)(a + f), d);
        /* the last sample is the sharp frame itself */
        cr_assert_eq(wb_image_hash(&ff.img[n * f + n - 1]), wb_image_hash(&fs.img[f]));
        moved += wb_image_hash(&fb.img[f]) != wb_image_hash(&fs.img[f]);
    }
    cr_expect_gt(moved, 0, "%s: no frame was blurred", path);
    frames_free(&fb);
    frames_free(&ff);
    frames_free(&fs);
}

Test(blur, rope_matches_fast_render_average)
{
    check_against_fast_render("../examples/rope-pendulums.yaml", "output.width=96", 4, 8, 12);
}

Test(blur, photo_matches_fast_render_average)
{
    check_against_fast_render("../examples/photo-grab.yaml", "output.width=96", 3, 10, 13);
}

Test(blur, jiggle_2d_matches_fast_render_average)
{
    check_against_fast_render("../examples/jiggle-2d-disc.yaml", "output.width=96", 4, 5, 8);
}

Test(blur, jiggle_3d_matches_fast_render_average)
{
    check_against_fast_render("../examples/jiggle-orb.yaml", "output.width=96", 4, 5, 8);
}

Test(blur, cloth_matches_fast_render_average)
{
    check_against_fast_render("../examples/cloth-flag-wind.yaml", "output.width=96", 2, 3, 5);
}

/* The same bytes on 1 and 3 threads, for a shutter that does not land on
 * the fast frames (0.5), and a range starting mid-render equals the full
 * render's frames (chunks). */
Test(blur, same_bytes_on_every_pool_and_chunk)
{
    const char *sets[] = {"output.width=120", "output.motion_blur.samples=5",
                          "output.motion_blur.shutter=0.5"};
    Frames one = {0}, three = {0}, chunk = {0};
    render("../examples/jiggle-2d-disc.yaml", sets, 3, 1, 0, 8, &one);
    render("../examples/jiggle-2d-disc.yaml", sets, 3, 3, 0, 8, &three);
    render("../examples/jiggle-2d-disc.yaml", sets, 3, 2, 5, 8, &chunk);
    for (int f = 0; f < 8; f++)
        cr_assert_eq(wb_image_hash(&one.img[f]), wb_image_hash(&three.img[f]), "frame %d", f);
    for (int f = 5; f < 8; f++)
        cr_assert_eq(wb_image_hash(&one.img[f]), wb_image_hash(&chunk.img[f - 5]), "frame %d", f);
    frames_free(&one);
    frames_free(&three);
    frames_free(&chunk);
}

/* A scene at rest blurs to its own bytes: N equal samples average back. */
Test(blur, still_frames_keep_their_bytes)
{
    const char *blur[] = {"output.width=96", "output.motion_blur.samples=7", "timeline=[]"};
    const char *sharp[] = {"output.width=96", "timeline=[]"};
    Frames fb = {0}, fs = {0};
    render("../examples/photo-transparent.yaml", blur, 3, 2, 0, 3, &fb);
    render("../examples/photo-transparent.yaml", sharp, 2, 2, 0, 3, &fs);
    for (int f = 0; f < 3; f++)
        cr_assert_eq(wb_image_hash(&fb.img[f]), wb_image_hash(&fs.img[f]), "frame %d", f);
    frames_free(&fb);
    frames_free(&fs);
}

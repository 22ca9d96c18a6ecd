/* test_jiggle_view.c — the 2D/1D jiggle view's framing (the world
 * rectangle it shows for each output shape and output.fit) and how it
 * fills a solid shape. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool.h"
#include "render/jiggle_view.h"

/* Fill the world rectangle w × h (centred on the origin) white on black and
 * return the covered extent in pixels (columns and rows with a lit pixel). */
static void drawn_extent(const WbJiggleViewSetup *s, double w, double h, int *cols, int *rows)
{
    WbJiggleView v;
    WbError err;
    cr_assert_eq(wb_jiggle_view_init(&v, s, &err), WB_OK, "%s", err.msg);
    WbImage img;
    cr_assert_eq(wb_image_alloc(&img, s->width, s->height, &err), WB_OK);
    wb_jiggle_view_begin(&v);
    wb_jiggle_view_rect(&v, -0.5 * w, -0.5 * h, 0.5 * w, 0.5 * h, (WbColor){1, 1, 1, 1});
    cr_assert_eq(wb_jiggle_view_end(&v, NULL, &img, &err), WB_OK, "%s", err.msg);
    int c = 0, r = 0;
    /* red channel of RGBA pixels */
    for (int x = 0; x < img.w; x++) {
        bool lit = false;
        for (int y = 0; y < img.h; y++)
            lit |= wb_image_row(&img, y)[4 * x] > 127;
        c += lit;
    }
    for (int y = 0; y < img.h; y++) {
        bool lit = false;
        for (int x = 0; x < img.w; x++)
            lit |= wb_image_row(&img, y)[4 * x] > 127;
        r += lit;
    }
    *cols = c;
    *rows = r;
    wb_image_free(&img);
    wb_jiggle_view_free(&v);
}

/* A 16:9 scene 2 units tall shown in a portrait frame: with its width given
 * and `fit`, all of it is visible (it spans the frame's width, letterboxed
 * top and bottom); `fill` covers the frame; without a width the height sets
 * the scale and the sides are cut off, as before. */
Test(jiggle_view, portrait_frame_fits_the_whole_scene)
{
    const double H = 2.0, W = H * 16.0 / 9.0;
    WbJiggleViewSetup s = {.width = 90, .height = 160, .samples = 1, .world_h = H,
                           .background = {0, 0, 0, 1}};
    int cols, rows;
    drawn_extent(&s, W, H, &cols, &rows);
    cr_assert(cols == 90 && rows == 160, "height-only framing: %dx%d", cols, rows);

    s.world_w = W;
    s.fit = WB_FIT_CONTAIN;
    drawn_extent(&s, W, H, &cols, &rows);
    /* 90 px across 16/9·2 units: the 2 units tall take 90·9/16 ≈ 50.6 px */
    cr_assert_eq(cols, 90, "fit: %d columns", cols);
    cr_assert(rows >= 50 && rows <= 52, "fit: %d rows", rows);

    s.fit = WB_FIT_COVER;
    drawn_extent(&s, W, H, &cols, &rows);
    cr_assert(cols == 90 && rows == 160, "fill: %dx%d", cols, rows);
}

/* A frame wider than the scene: `fit` keeps the height (the default
 * framing), `fill` scales up to the width and crops top and bottom. */
Test(jiggle_view, wide_frame_fits_by_height_or_fills_by_width)
{
    const double H = 2.0, W = H * 16.0 / 9.0;
    WbJiggleViewSetup s = {.width = 200, .height = 50, .samples = 1, .world_h = H,
                           .world_w = W, .fit = WB_FIT_CONTAIN, .background = {0, 0, 0, 1}};
    int cols, rows;
    drawn_extent(&s, W, H, &cols, &rows);
    cr_assert_eq(rows, 50, "fit: %d rows", rows);
    cr_assert(cols >= 88 && cols <= 90, "fit: %d columns (50 px · 16/9)", cols);
    s.fit = WB_FIT_COVER;
    drawn_extent(&s, W, H, &cols, &rows);
    cr_assert(cols == 200 && rows == 50, "fill: %dx%d", cols, rows);
    WbError err;
    WbJiggleView v;
    s.world_w = -1;
    cr_assert_eq(wb_jiggle_view_init(&v, &s, &err), WB_E_INPUT);
}

/* A solid shape: a disc of radius 1 at the origin with its whole rim tinted
 * red on a grey fill.  The tint fades in from the rim: the centre and the
 * point half way out are the fill colour exactly (a fan from the centre
 * blended them half and half there), a point near the rim is nearly red,
 * and the fill is the same all round (no wedge per rim colour). */
Test(jiggle_view, a_solid_shape_is_tinted_from_its_rim_inward)
{
    enum { N = 96, S = 200 };
    WbJiggleViewSetup s = {.width = S, .height = S, .samples = 4, .world_h = 2.4,
                           .background = {0, 0, 0, 1}};
    WbJiggleView v;
    WbError err;
    cr_assert_eq(wb_jiggle_view_init(&v, &s, &err), WB_OK, "%s", err.msg);
    float outer[2 * N], rgba[4 * N];
    for (int i = 0; i < N; i++) {
        double a = 2.0 * M_PI * i / N;
        outer[2 * i] = (float)cos(a);
        outer[2 * i + 1] = (float)sin(a);
        const float red[4] = {1.0f, 0.0f, 0.0f, 1.0f};
        memcpy(rgba + 4 * i, red, sizeof red);
    }
    const float grey[4] = {0.5f, 0.5f, 0.5f, 1.0f};
    WbImage img;
    cr_assert_eq(wb_image_alloc(&img, S, S, &err), WB_OK);
    wb_jiggle_view_begin(&v);
    wb_jiggle_view_shape(&v, outer, NULL, N, rgba, NULL, 0.0f, 0.0f, grey, (WbColor){0, 0, 0, 1},
                         0.0f);
    cr_assert_eq(wb_jiggle_view_end(&v, NULL, &img, &err), WB_OK, "%s", err.msg);
    /* one unit is S/2.4 px; the centre at pixel S/2 */
    const double ppu = S / 2.4;
    for (int k = 0; k < 8; k++) {
        double a = 2.0 * M_PI * (k + 0.3) / 8;
        const double radii[3] = {0.0, 0.5, 0.93};
        for (int r = 0; r < 3; r++) {
            int x = (int)(S / 2 + radii[r] * ppu * cos(a)), y = (int)(S / 2 - radii[r] * ppu * sin(a));
            const uint8_t *p = wb_image_row(&img, y) + 4 * x;
            if (r < 2)
                cr_expect(abs(p[0] - 128) <= 1 && abs(p[1] - 128) <= 1,
                          "at radius %g, angle %d: %d %d %d (want the fill)", radii[r], k, p[0],
                          p[1], p[2]);
            else
                cr_expect(p[0] > 200 && p[1] < 60, "near the rim, angle %d: %d %d %d", k, p[0], p[1],
                          p[2]);
        }
    }
    wb_image_free(&img);
    wb_jiggle_view_free(&v);
}

/* test_inpaint.c — the fill behind a moving object (core/inpaint.c):
 * a constant is continued exactly, a linear ramp within a few levels (the
 * membrane equation's solution is the ramp itself; the pyramid's
 * relaxation gets close to it), the object's colour does not survive,
 * pixels far from the mask keep their bytes, a flat fill is the colour;
 * and through the photo view, on a real photograph, the still background
 * holds no trace of a red object. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/inpaint.h"
#include "io/image_load.h"
#include "render/photo_view.h"

static WbImage make_image(int w, int h)
{
    WbImage img;
    WbError err;
    cr_assert_eq(wb_image_alloc(&img, w, h, &err), WB_OK);
    return img;
}

static void put(WbImage *img, int x, int y, int r, int g, int b, int a)
{
    uint8_t *p = wb_image_row(img, y) + 4 * x;
    p[0] = (uint8_t)r;
    p[1] = (uint8_t)g;
    p[2] = (uint8_t)b;
    p[3] = (uint8_t)a;
}

/* A disc of weight 1 centred at (cx, cy), radius r, with a linear soft edge
 * `soft` pixels wide outside it. */
static float *disc_mask(int w, int h, double cx, double cy, double r, double soft)
{
    float *m = calloc((size_t)w * (size_t)h, sizeof *m);
    cr_assert_not_null(m);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double d = hypot(x + 0.5 - cx, y + 0.5 - cy) - r;
            double v = d <= 0 ? 1.0 : soft > 0 && d < soft ? 1.0 - d / soft : 0.0;
            m[(size_t)y * (size_t)w + (size_t)x] = (float)v;
        }
    return m;
}

static WbImage inpaint(const WbImage *src, const float *mask, const WbInpaintDef *def)
{
    WbImage out;
    WbError err;
    cr_assert_eq(wb_inpaint(src, mask, def, &out, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(out.w, src->w);
    cr_assert_eq(out.h, src->h);
    return out;
}

Test(inpaint, constant_is_continued_exactly)
{
    WbImage img = make_image(97, 61);
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++)
            put(&img, x, y, 70, 140, 210, 255);
    /* The object: a different colour where the mask is whole (it must go);
     * the soft edge lies outside it, as a segmenter's would. */
    float *m = disc_mask(img.w, img.h, 40, 30, 15, 3);
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++)
            if (m[(size_t)y * (size_t)img.w + (size_t)x] >= 1)
                put(&img, x, y, 255, 0, 0, 255);
    WbInpaintDef def = {.margin = WB_INPAINT_MARGIN};
    WbImage out = inpaint(&img, m, &def);
    for (int y = 0; y < out.h; y++)
        for (int x = 0; x < out.w; x++) {
            const uint8_t *p = wb_image_row(&out, y) + 4 * x;
            cr_assert(p[0] == 70 && p[1] == 140 && p[2] == 210 && p[3] == 255,
                      "(%d, %d) is %u %u %u %u", x, y, p[0], p[1], p[2], p[3]);
        }
    wb_image_free(&out);
    wb_image_free(&img);
    free(m);
}

/* R = x, G = 2y, B = 255 - x: a plane in every channel. */
static WbImage ramp(int w, int h)
{
    WbImage img = make_image(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            put(&img, x, y, x, 2 * y, 255 - x, 255);
    return img;
}

static int max_ramp_error(const WbImage *out)
{
    int worst = 0;
    for (int y = 0; y < out->h; y++)
        for (int x = 0; x < out->w; x++) {
            const uint8_t *p = wb_image_row(out, y) + 4 * x;
            int e[3] = {abs(p[0] - x), abs(p[1] - 2 * y), abs(p[2] - (255 - x))};
            for (int k = 0; k < 3; k++)
                worst = e[k] > worst ? e[k] : worst;
        }
    return worst;
}

/* Tolerance: 3 levels of 255 on a ramp of 1 level a pixel across a hole
 * 40 pixels wide (the exact membrane solution is the ramp itself). */
Test(inpaint, linear_ramp_is_continued_closely)
{
    WbImage img = ramp(256, 120);
    float *m = disc_mask(img.w, img.h, 128, 60, 20, 2);
    WbInpaintDef def = {.margin = WB_INPAINT_MARGIN};
    WbImage out = inpaint(&img, m, &def);
    int worst = max_ramp_error(&out);
    cr_log_info("ramp: largest error %d levels", worst);
    cr_assert_leq(worst, 3, "largest error %d levels", worst);
    wb_image_free(&out);
    /* Off centre: no symmetry to help.  (A hole touching the border is
     * continued flat across it, not as the ramp: the image edge is a free
     * boundary of the membrane.) */
    free(m);
    m = disc_mask(img.w, img.h, 60, 70, 25, 2);
    out = inpaint(&img, m, &def);
    worst = max_ramp_error(&out);
    cr_log_info("ramp: largest error %d levels off centre", worst);
    cr_assert_leq(worst, 3, "largest error %d levels off centre", worst);
    wb_image_free(&out);
    wb_image_free(&img);
    free(m);
}

/* A red disc (antialiased) on a blue and green picture: after the fill no
 * red is left where the mask is, and outside the grown mask every byte is
 * the photo's. */
Test(inpaint, no_object_colour_remains)
{
    int w = 160, h = 120;
    WbImage img = make_image(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int g = y < h / 2 ? 160 + (x * 7 + y * 13) % 40 : 30;  /* textured green */
            int b = y < h / 2 ? 40 : 150 + (x * 11 + y * 5) % 60;   /* textured blue */
            double d = hypot(x + 0.5 - 70, y + 0.5 - 55) - 30;
            double cover = d <= -0.5 ? 1 : d >= 0.5 ? 0 : 0.5 - d;   /* antialiased */
            int r = (int)lround(cover * 230);
            put(&img, x, y, r, (int)lround((1 - cover) * g), (int)lround((1 - cover) * b), 255);
        }
    float *m = disc_mask(w, h, 70, 55, 30, 1.5);
    WbInpaintDef def = {.margin = WB_INPAINT_MARGIN};
    WbImage out = inpaint(&img, m, &def);
    int reddest = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = wb_image_row(&out, y) + 4 * x;
            const uint8_t *s = wb_image_row(&img, y) + 4 * x;
            double d = hypot(x + 0.5 - 70, y + 0.5 - 55) - 30;
            if (m[(size_t)y * (size_t)w + (size_t)x] > 0)
                reddest = p[0] > reddest ? p[0] : reddest;
            if (d > 1.5 + WB_INPAINT_MARGIN * M_SQRT2 + 1)
                cr_assert(!memcmp(p, s, 4), "(%d, %d) changed outside the mask", x, y);
        }
    cr_assert_leq(reddest, 24, "red %d left under the mask", reddest);
    wb_image_free(&out);
    wb_image_free(&img);
    free(m);
}

Test(inpaint, flat_colour_and_no_known_pixel)
{
    WbImage img = ramp(64, 48);
    float *m = disc_mask(img.w, img.h, 32, 24, 10, 0);
    WbInpaintDef def = {.margin = 0, .flat = true, .color = {1.0, 0.0, 0.0, 1.0}};
    WbImage out = inpaint(&img, m, &def);
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++) {
            const uint8_t *p = wb_image_row(&out, y) + 4 * x;
            const uint8_t *s = wb_image_row(&img, y) + 4 * x;
            if (m[(size_t)y * (size_t)img.w + (size_t)x] >= 1)
                cr_assert(p[0] == 255 && p[1] == 0 && p[2] == 0 && p[3] == 255);
            else if (m[(size_t)y * (size_t)img.w + (size_t)x] == 0)
                cr_assert(!memcmp(p, s, 4));
        }
    wb_image_free(&out);
    /* Everything masked: nothing to continue, the photo comes back. */
    for (size_t i = 0; i < (size_t)img.w * (size_t)img.h; i++)
        m[i] = 1;
    def.flat = false;
    out = inpaint(&img, m, &def);
    for (int y = 0; y < img.h; y++)
        cr_assert(!memcmp(wb_image_row(&out, y), wb_image_row(&img, y), 4 * (size_t)img.w));
    wb_image_free(&out);
    WbError err;
    def.margin = -1;
    cr_assert_eq(wb_inpaint(&img, m, &def, &out, &err), WB_E_INPUT);
    wb_image_free(&img);
    free(m);
}

/* Transparent surroundings lend no colour: a hole in an opaque blue area
 * next to transparent pixels whose (meaningless) colour is red. */
Test(inpaint, transparent_colour_does_not_bleed)
{
    WbImage img = make_image(80, 40);
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++)
            put(&img, x, y, x < 40 ? 255 : 0, 0, x < 40 ? 0 : 200, x < 40 ? 0 : 255);
    float *m = disc_mask(img.w, img.h, 40, 20, 8, 0);
    WbInpaintDef def = {.margin = 1};
    WbImage out = inpaint(&img, m, &def);
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++) {
            const uint8_t *p = wb_image_row(&out, y) + 4 * x;
            if (p[3] >= 8)   /* visible enough for its colour to be straight */
                cr_assert(p[0] <= 1 && p[2] >= 198, "(%d, %d): %u %u %u %u", x, y, p[0], p[1],
                          p[2], p[3]);
        }
    wb_image_free(&out);
    wb_image_free(&img);
    free(m);
}

/* The photo view's rest pass alone (a mask of zeros per vertex: the moving
 * pass draws nothing), of `img` shown at its own size. */
static void rest_pass(const WbImage *img, const float *px_mask, const WbInpaintDef *fill,
                      WbImage *out)
{
    int grid = 64;
    size_t n = (size_t)(grid + 1) * (size_t)(grid + 1);
    float *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry);
    float *zero = calloc(n, sizeof *zero);
    cr_assert(rx && ry && zero);
    wb_photo_view_rest(grid, img->w, img->h, rx, ry);
    WbError err;
    WbPhotoViewDef def = {.image = img, .grid = grid, .width = img->w, .height = img->h,
                          .fit = WB_FIT_CONTAIN, .background = {0, 0, 0, 1}, .samples = 4,
                          .mask = px_mask, .fill = fill};
    WbPhotoView v;
    cr_assert_eq(wb_photo_view_init(&v, &def, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(wb_image_alloc(out, img->w, img->h, &err), WB_OK);
    cr_assert_eq(wb_photo_view_draw(&v, NULL, rx, ry, rx, ry, zero, out, &err), WB_OK);
    wb_photo_view_free(&v);
    free(rx);
    free(ry);
    free(zero);
}

/* Red: R above both G and B by more than 40 levels. */
static int red_pixels(const WbImage *img, const float *mask)
{
    int n = 0;
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++) {
            const uint8_t *p = wb_image_row(img, y) + 4 * x;
            if (mask[(size_t)y * (size_t)img->w + (size_t)x] > 0 && p[0] > p[1] + 40 &&
                p[0] > p[2] + 40)
                n++;
        }
    return n;
}

#define ROCKET "/usr/lib/python3/dist-packages/skimage/data/rocket.jpg"

/* scikit-image's rocket (blue sky, Debian package python3-skimage; the CLI
 * suite installs it through scripts/deps.sh) with a red disc painted on the
 * sky, antialiased, and a mask a little larger with a soft edge. */
Test(inpaint, real_photo_rest_pass_keeps_no_red_object)
{
    WbImage img;
    bool alpha;
    WbError err;
    if (wb_image_load(ROCKET, &img, &alpha, &err) != WB_OK)
        cr_skip_test("%s missing: scripts/deps.sh python3-skimage installs it", ROCKET);
    double cx = 0.38 * img.w, cy = 0.3 * img.h, r = 0.09 * img.w;
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++) {
            double d = hypot(x + 0.5 - cx, y + 0.5 - cy) - r;
            double cover = d <= -0.5 ? 1 : d >= 0.5 ? 0 : 0.5 - d;
            uint8_t *p = wb_image_row(&img, y) + 4 * x;
            p[0] = (uint8_t)lround(cover * 220 + (1 - cover) * p[0]);
            p[1] = (uint8_t)lround(cover * 20 + (1 - cover) * p[1]);
            p[2] = (uint8_t)lround(cover * 30 + (1 - cover) * p[2]);
        }
    float *m = disc_mask(img.w, img.h, cx, cy, r + 1, 3);
    WbImage before, after;
    rest_pass(&img, m, NULL, &before);
    WbInpaintDef def = {.margin = WB_INPAINT_MARGIN};
    rest_pass(&img, m, &def, &after);
    int red_before = red_pixels(&before, m), red_after = red_pixels(&after, m);
    cr_log_info("real photo: %d red pixels under the mask without the fill, %d with", red_before,
                red_after);
    cr_assert_gt(red_before, 1000, "the object is not there to begin with");
    cr_assert_eq(red_after, 0, "%d red pixels left", red_after);
    /* Away from the mask the rest pass is the photo, byte for byte. */
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++)
            if (hypot(x + 0.5 - cx, y + 0.5 - cy) > r + 1 + 3 + WB_INPAINT_MARGIN * M_SQRT2 + 2)
                cr_assert(!memcmp(wb_image_row(&before, y) + 4 * x,
                                  wb_image_row(&after, y) + 4 * x, 4),
                          "(%d, %d) changed away from the mask", x, y);
    wb_image_free(&before);
    wb_image_free(&after);
    wb_image_free(&img);
    free(m);
}

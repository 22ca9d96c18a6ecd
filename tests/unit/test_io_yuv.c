/* RGBA → 4:2:0 YUV: BT.709 limited-range values and chroma siting. */
#include <criterion/criterion.h>

#include <string.h>

#include "io/yuv.h"

static void convert(const WbImage *img, uint8_t *y, uint8_t *u, uint8_t *v, uint8_t *a)
{
    int cw = (img->w + 1) / 2;
    uint8_t *planes[4] = {y, u, v, a};
    int ls[4] = {img->w, cw, cw, img->w};
    wb_rgba_to_yuv420(img, planes, ls);
}

static void flat(WbImage *img, uint8_t r, uint8_t g, uint8_t b, uint8_t alpha)
{
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++)
            memcpy(wb_image_row(img, y) + 4 * x, (uint8_t[]){r, g, b, alpha}, 4);
}

Test(io, yuv420_bt709_limited_reference_colours)
{
    /* Y = 16 + 219·Y', Cb = 128 + 224·(B'-Y')/1.8556, Cr = 128 + 224·(R'-Y')/1.5748,
     * rounded: the BT.709 table values for the corners of the RGB cube. */
    static const struct {
        uint8_t r, g, b, y, u, v;
    } ref[] = {
        {0, 0, 0, 16, 128, 128},       {255, 255, 255, 235, 128, 128},
        {255, 0, 0, 63, 102, 240},     {0, 255, 0, 173, 42, 26},
        {0, 0, 255, 32, 240, 118},     {255, 255, 0, 219, 16, 138},
        {0, 255, 255, 188, 154, 16},   {255, 0, 255, 78, 214, 230},
        {128, 128, 128, 126, 128, 128},
    };
    WbImage img;
    WbError err;
    cr_assert_eq(wb_image_alloc(&img, 5, 3, &err), WB_OK);
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        flat(&img, ref[i].r, ref[i].g, ref[i].b, 77);
        uint8_t y[15], u[6], v[6], a[15];
        convert(&img, y, u, v, a);
        for (int k = 0; k < 15; k++) {
            cr_expect_eq(y[k], ref[i].y, "colour %zu Y %d", i, y[k]);
            cr_expect_eq(a[k], 77);
        }
        for (int k = 0; k < 6; k++) {
            cr_expect_eq(u[k], ref[i].u, "colour %zu Cb %d", i, u[k]);
            cr_expect_eq(v[k], ref[i].v, "colour %zu Cr %d", i, v[k]);
        }
    }
    wb_image_free(&img);
}

Test(io, yuv420_chroma_is_left_sited)
{
    /* One red column at x = 2 on grey: chroma sample 1 (co-sited with x = 2)
     * gets half the red, samples 0 and 2 (x = 0, 4) none of it, and the
     * [1 2 1] taps at x = 1 and 3 do not exist for a column at x = 2 ± 2. */
    WbImage img;
    WbError err;
    cr_assert_eq(wb_image_alloc(&img, 6, 2, &err), WB_OK);
    flat(&img, 128, 128, 128, 255);
    for (int y = 0; y < 2; y++)
        memcpy(wb_image_row(&img, y) + 8, (uint8_t[]){255, 128, 128, 255}, 4);
    uint8_t yp[12], u[3], v[3];
    convert(&img, yp, u, v, NULL);
    cr_expect_eq(v[0], 128);
    cr_expect_eq(v[2], 128);
    cr_expect_gt(v[1], 128);
    /* Red column at x = 3 instead: samples 1 and 2 see it with weight 1/4. */
    flat(&img, 128, 128, 128, 255);
    for (int y = 0; y < 2; y++)
        memcpy(wb_image_row(&img, y) + 12, (uint8_t[]){255, 128, 128, 255}, 4);
    convert(&img, yp, u, v, NULL);
    cr_expect_eq(v[0], 128);
    cr_expect_eq(v[1], v[2]);
    cr_expect_gt(v[1], 128);
    wb_image_free(&img);
}

Test(io, yuv420_odd_sizes_cover_every_sample)
{
    WbImage img;
    WbError err;
    cr_assert_eq(wb_image_alloc(&img, 3, 3, &err), WB_OK);
    flat(&img, 255, 0, 0, 255);
    uint8_t y[9], u[4], v[4];
    memset(u, 0, sizeof u);
    memset(v, 0, sizeof v);
    convert(&img, y, u, v, NULL);
    for (int k = 0; k < 4; k++) {
        cr_expect_eq(u[k], 102);
        cr_expect_eq(v[k], 240);
    }
    wb_image_free(&img);
}

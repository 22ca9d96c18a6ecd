/* test_weightmap.c — weight map conversions, area, blur, gains, sampling,
 * presets and the seed-in-name convention. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/png.h"
#include "sim/jiggle.h"
#include "sim/weightmap.h"

static WbWeightMap make(int w, int h)
{
    WbWeightMap m;
    WbError err;
    cr_assert_eq(wb_weightmap_init(&m, w, h, &err), WB_OK);
    return m;
}

static double total(const WbWeightMap *m, int c)
{
    double s = 0.0;
    for (size_t i = 0; i < (size_t)m->w * m->h; i++) s += m->texel[i * 3 + c];
    return s;
}

Test(weightmap, init_rejects_bad_sizes)
{
    WbWeightMap m;
    WbError err;
    cr_assert_eq(wb_weightmap_init(&m, 0, 10, &err), WB_E_INPUT);
    cr_assert_null(m.texel);
}

Test(weightmap, image_round_trip_is_bit_exact)
{
    WbImage img, back;
    WbError err;
    cr_assert_eq(wb_image_alloc(&img, 37, 11, &err), WB_OK);
    uint32_t s = 12345;
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++) {
            uint8_t *p = wb_image_row(&img, y) + 4 * x;
            for (int c = 0; c < 3; c++) {
                s = s * 1664525u + 1013904223u;
                p[c] = (uint8_t)(s >> 24);
            }
            p[3] = 255;
        }
    wb_image_row(&img, 0)[0] = 0;
    wb_image_row(&img, 0)[1] = 255;
    WbWeightMap m;
    cr_assert_eq(wb_weightmap_from_image(&m, &img, &err), WB_OK);
    cr_assert_eq(m.texel[0], 0.0f);
    cr_assert_eq(m.texel[1], 1.0f);
    cr_assert_eq(wb_weightmap_to_image(&m, &back, &err), WB_OK);
    for (int y = 0; y < img.h; y++)
        cr_assert(memcmp(wb_image_row(&img, y), wb_image_row(&back, y), 4 * (size_t)img.w) == 0, "row %d", y);
    wb_image_free(&img);
    wb_image_free(&back);
    wb_weightmap_free(&m);
}

Test(weightmap, area_is_mean_weight_and_feeds_size)
{
    WbWeightMap m = make(64, 32);
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 64; x++) m.texel[((size_t)y * 64 + x) * 3 + 0] = 1.0f;
    for (size_t i = 0; i < 64 * 32; i++) m.texel[i * 3 + 1] = 0.5f;
    double area[3];
    wb_weightmap_area(&m, area);
    cr_assert_float_eq(area[0], 0.25, 1e-12);
    cr_assert_float_eq(area[1], 0.5, 1e-12);
    cr_assert_eq(area[2], 0.0);
    cr_assert_float_eq(wb_jiggle_size_from_area(area[0], WB_JIGGLE_AREA_REF_DEFAULT), 1.25, 1e-12);
    cr_assert_eq(wb_jiggle_size_from_area(area[2], WB_JIGGLE_AREA_REF_DEFAULT), 0.5);
    wb_weightmap_free(&m);
}

Test(weightmap, blur_preserves_total_weight_away_from_borders)
{
    WbWeightMap m = make(128, 64), b = make(128, 64);
    wb_weightmap_stamp(&m, 0, 0.5, 0.5, 1.0, 0.2);
    wb_weightmap_stamp(&m, 2, 0.02, 0.5, 0.7, 0.2); /* straddles the u seam */
    WbError err;
    cr_assert_eq(wb_weightmap_blur(&m, &b, 6.7, &err), WB_OK);
    for (int c = 0; c < 3; c += 2)
        cr_expect(fabs(total(&b, c) - total(&m, c)) <= 1e-5 * total(&m, c), "channel %d: %.9g vs %.9g", c,
                  total(&b, c), total(&m, c));
    /* It spreads: the peak drops and the weight reaches further. */
    size_t centre = ((size_t)32 * 128 + 64) * 3;
    cr_assert(b.texel[centre] < m.texel[centre]);
    size_t far = ((size_t)32 * 128 + 64 + 16) * 3;
    cr_assert(m.texel[far] == 0.0f && b.texel[far] > 0.0f);
    /* In place gives the same result. */
    cr_assert_eq(wb_weightmap_blur(&m, &m, 6.7, &err), WB_OK);
    cr_assert(memcmp(m.texel, b.texel, (size_t)128 * 64 * 3 * sizeof(float)) == 0);
    wb_weightmap_free(&m);
    wb_weightmap_free(&b);
}

Test(weightmap, blur_of_a_constant_is_the_constant)
{
    WbWeightMap m = make(40, 20);
    for (size_t i = 0; i < 40 * 20 * 3; i++) m.texel[i] = 0.3f;
    WbError err;
    cr_assert_eq(wb_weightmap_blur(&m, &m, wb_weightmap_force_radius_px(&m, 0.15), &err), WB_OK);
    for (size_t i = 0; i < 40 * 20 * 3; i++) cr_assert_float_eq(m.texel[i], 0.3f, 1e-6);
    wb_weightmap_free(&m);
}

Test(weightmap, region_gains_scale_and_clamp)
{
    WbWeightMap m = make(4, 4);
    for (size_t i = 0; i < 16; i++) {
        m.texel[i * 3] = 0.4f;
        m.texel[i * 3 + 1] = 0.4f;
        m.texel[i * 3 + 2] = 0.4f;
    }
    const double g[3] = {1.0, 3.0, 0.0};
    wb_weightmap_gains(&m, 2.0, g);
    cr_assert_float_eq(m.texel[0], 0.8f, 1e-6);
    cr_assert_eq(m.texel[1], 1.0f);
    cr_assert_eq(m.texel[2], 0.0f);
    wb_weightmap_free(&m);
}

Test(weightmap, sample_hits_texel_centres_and_wraps_u)
{
    WbWeightMap m = make(8, 4);
    m.texel[(1 * 8 + 0) * 3] = 1.0f; /* texel (0, 1) */
    float out[3];
    wb_weightmap_sample(&m, 0.5 / 8, 1.5 / 4, out);
    cr_assert_eq(out[0], 1.0f);
    /* Half-way to the left neighbour across the seam (texel 7). */
    wb_weightmap_sample(&m, 0.0, 1.5 / 4, out);
    cr_assert_float_eq(out[0], 0.5f, 1e-6);
    wb_weightmap_sample(&m, 1.0, 1.5 / 4, out);
    cr_assert_float_eq(out[0], 0.5f, 1e-6);
    wb_weightmap_free(&m);
}

Test(weightmap, seed_from_file_name)
{
    uint32_t s = 0;
    cr_assert(wb_weightmap_seed_from_name("jiggle-weights-seed-7.png", &s));
    cr_assert_eq(s, 7u);
    cr_assert(wb_weightmap_seed_from_name("/tmp/seed-9/my-seed-4294967295.png", &s));
    cr_assert_eq(s, 4294967295u);
    s = 3;
    cr_assert_not(wb_weightmap_seed_from_name("/tmp/seed-9/weights.png", &s));
    cr_assert_not(wb_weightmap_seed_from_name("weights-seed-4294967296.png", &s));
    cr_assert_not(wb_weightmap_seed_from_name("seed-.png", &s));
    cr_assert_eq(s, 3u);
    cr_assert(wb_weightmap_seed_from_name("a-seed-12-b-seed-034.png", &s));
    cr_assert_eq(s, 34u);
}

Test(weightmap, presets_paint_their_regions)
{
    WbWeightMap m = make(WB_WEIGHTMAP_DEFAULT_W, WB_WEIGHTMAP_DEFAULT_H);
    double a[3];
    wb_weightmap_preset(&m, WB_WEIGHT_ORB);
    wb_weightmap_area(&m, a);
    cr_assert(a[0] > a[1] && a[1] > 0.0 && a[2] == 0.0, "orb %g %g %g", a[0], a[1], a[2]);
    float w[3];
    wb_weightmap_sample(&m, 0.3, 0.9, w); /* bottom of the orb is bone 0 */
    cr_assert(w[0] > 0.8f);
    wb_weightmap_preset(&m, WB_WEIGHT_TORUS);
    wb_weightmap_area(&m, a);
    cr_assert(a[0] > 0.0 && fabs(a[0] - a[1]) < 1e-3 * a[0] && fabs(a[2] - a[1]) < 1e-3 * a[0],
              "torus %g %g %g", a[0], a[1], a[2]);
    wb_weightmap_preset(&m, WB_WEIGHT_DANCER);
    wb_weightmap_area(&m, a);
    cr_assert(a[0] > 0.0 && a[1] > 0.0 && a[2] > 0.0);
    wb_weightmap_sample(&m, 0.5, 0.02, w); /* feet anchored */
    cr_assert(w[0] == 0.0f && w[1] == 0.0f && w[2] == 0.0f);
    wb_weightmap_preset(&m, WB_WEIGHT_WALKER);
    wb_weightmap_area(&m, a);
    cr_assert(a[0] > 0.0 && a[1] > 0.0 && a[2] > 0.0);
    const double bust[3] = {0.105, 0.345, 0.135};
    double uv[2];
    wb_weight_shape_uv(WB_WEIGHT_WALKER, bust, uv);
    wb_weightmap_sample(&m, uv[0], uv[1], w);
    cr_assert(w[0] > 0.3f && w[1] == 0.0f);
    WbWeightShape sh;
    cr_assert(wb_weight_shape_from_name("capsule", &sh) && sh == WB_WEIGHT_CAPSULE);
    cr_assert_not(wb_weight_shape_from_name("cube", &sh));
    wb_weightmap_free(&m);
}

/* The portable asset: a preset exported as an RGBA PNG named with its seed
 * reads back to the same bytes, and the name gives the seed back. */
Test(weightmap, png_round_trip_is_bit_exact)
{
    WbWeightMap m = make(WB_WEIGHTMAP_DEFAULT_W, WB_WEIGHTMAP_DEFAULT_H), back;
    wb_weightmap_preset(&m, WB_WEIGHT_TORUS);
    WbImage img, read;
    WbError err;
    cr_assert_eq(wb_weightmap_to_image(&m, &img, &err), WB_OK);
    char dir[] = "/tmp/wb-weightmap-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/jiggle-weights-seed-7.png", dir);
    cr_assert_eq(wb_png_write(path, &img, true, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(wb_png_read(path, &read, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(wb_weightmap_from_image(&back, &read, &err), WB_OK);
    WbImage again;
    cr_assert_eq(wb_weightmap_to_image(&back, &again, &err), WB_OK);
    for (int y = 0; y < img.h; y++)
        cr_assert(memcmp(wb_image_row(&img, y), wb_image_row(&again, y), 4 * (size_t)img.w) == 0, "row %d", y);
    uint32_t seed = 0;
    cr_assert(wb_weightmap_seed_from_name(path, &seed));
    cr_assert_eq(seed, 7u);
    unlink(path);
    rmdir(dir);
    wb_image_free(&img);
    wb_image_free(&read);
    wb_image_free(&again);
    wb_weightmap_free(&m);
    wb_weightmap_free(&back);
}

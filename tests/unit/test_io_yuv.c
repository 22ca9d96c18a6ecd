/* RGBA → 4:2:0 YUV: BT.709 limited-range values and chroma siting. */
#include <criterion/criterion.h>

#include <stdlib.h>
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

/* The documented formula, written out plainly: coefficients rounded to 16
 * fractional bits, luma per pixel, chroma from the [1 2 1] × [1 1] sums of
 * RGB (8× the filtered value, hence 19 bits) with edges repeated. */
#define REF_FIX(x) ((int32_t)((x) * 65536.0 + ((x) < 0 ? -0.5 : 0.5)))

static void reference(const WbImage *img, uint8_t *const planes[4], const int ls[4])
{
    const double kr = 0.2126, kg = 0.7152, kb = 0.0722;
    const int32_t yc[3] = {REF_FIX(219.0 / 255.0 * kr), REF_FIX(219.0 / 255.0 * kg),
                           REF_FIX(219.0 / 255.0 * kb)};
    const int32_t uc[3] = {REF_FIX(224.0 / 255.0 * -kr / 1.8556),
                           REF_FIX(224.0 / 255.0 * -kg / 1.8556), REF_FIX(224.0 / 255.0 * 0.5)};
    const int32_t vc[3] = {REF_FIX(224.0 / 255.0 * 0.5), REF_FIX(224.0 / 255.0 * -kg / 1.5748),
                           REF_FIX(224.0 / 255.0 * -kb / 1.5748)};
    int w = img->w, h = img->h;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = wb_image_row(img, y) + 4 * x;
            int32_t s = yc[0] * p[0] + yc[1] * p[1] + yc[2] * p[2];
            planes[0][y * ls[0] + x] = (uint8_t)((s + (16 << 16) + (1 << 15)) >> 16);
            if (planes[3])
                planes[3][y * ls[3] + x] = p[3];
        }
    for (int j = 0; j < (h + 1) / 2; j++)
        for (int i = 0; i < (w + 1) / 2; i++) {
            int32_t s[3] = {0, 0, 0};
            for (int dy = 0; dy < 2; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int yy = 2 * j + dy < h ? 2 * j + dy : h - 1;
                    int xx = 2 * i + dx;
                    xx = xx < 0 ? 0 : xx >= w ? w - 1 : xx;
                    const uint8_t *p = wb_image_row(img, yy) + 4 * xx;
                    for (int c = 0; c < 3; c++)
                        s[c] += (dx == 0 ? 2 : 1) * p[c];
                }
            int32_t su = uc[0] * s[0] + uc[1] * s[1] + uc[2] * s[2];
            int32_t sv = vc[0] * s[0] + vc[1] * s[1] + vc[2] * s[2];
            planes[1][j * ls[1] + i] = (uint8_t)((su + (128 << 19) + (1 << 18)) >> 19);
            planes[2][j * ls[2] + i] = (uint8_t)((sv + (128 << 19) + (1 << 18)) >> 19);
        }
}

static uint64_t rng_next(uint64_t *s)
{
    /* xorshift64*: reproducible images without libc's rand. */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* Fill img's w×h pixels and the row padding beyond w: mode 0 uniform bytes,
 * mode 1 bytes mostly 0 or 255 (the extremes of every sum), mode 2 smooth
 * ramps with noise (photo-like). */
static void fill(WbImage *img, int padded_w, uint64_t *rng, int mode)
{
    for (int y = 0; y < img->h; y++) {
        uint8_t *row = wb_image_row(img, y);
        for (int b = 0; b < 4 * padded_w; b++) {
            uint64_t r = rng_next(rng);
            uint8_t val = (uint8_t)(r >> 56);
            if (mode == 1)
                val = (r & 3) == 0 ? val : (r & 4) ? 255 : 0;
            else if (mode == 2)
                val = (uint8_t)((b / 4 * 7 + y * 5 + (b % 4) * 60 + (int)((r >> 60) & 7)) & 255);
            row[b] = val;
        }
    }
}

/* Planes with GUARD spare bytes after each row, all bytes 0xA5 at first;
 * no alpha plane (p[3] NULL) unless asked for. */
typedef struct {
    uint8_t *p[4];
    int ls[4], rows[4];
} Planes;

static void planes_alloc(Planes *pl, int w, int h, bool alpha)
{
    enum { GUARD = 5 };
    int cw = (w + 1) / 2, ch = (h + 1) / 2;
    const int ls[4] = {w + GUARD, cw + GUARD, cw + GUARD, w + GUARD}, rows[4] = {h, ch, ch, h};
    for (int k = 0; k < 4; k++) {
        pl->ls[k] = ls[k];
        pl->rows[k] = k == 3 && !alpha ? 0 : rows[k];
        pl->p[k] = NULL;
        if (!pl->rows[k])
            continue;
        pl->p[k] = malloc((size_t)ls[k] * (size_t)rows[k]);
        cr_assert(pl->p[k]);
        memset(pl->p[k], 0xA5, (size_t)ls[k] * (size_t)rows[k]);
    }
}

static bool planes_equal(const Planes *a, const Planes *b)
{
    for (int k = 0; k < 4; k++)
        if (a->rows[k] && memcmp(a->p[k], b->p[k], (size_t)a->ls[k] * (size_t)a->rows[k]))
            return false;
    return true;
}

static void planes_copy(Planes *dst, const Planes *src)
{
    for (int k = 0; k < 4; k++)
        if (src->rows[k])
            memcpy(dst->p[k], src->p[k], (size_t)src->ls[k] * (size_t)src->rows[k]);
}

static void planes_free(Planes *pl)
{
    for (int k = 0; k < 4; k++)
        free(pl->p[k]);
}

/* Converts with path (a WbYuvPath, or -1 for wb_rgba_to_yuv420, the
 * sinks' entry) and with the reference into planes with a guard of spare
 * bytes after each row, and fails the test at the first byte that differs
 * (a guard byte written by the path differs too). */
static void compare_path(int path, const WbImage *img, bool alpha, const char *what)
{
    Planes got, want;
    planes_alloc(&got, img->w, img->h, alpha);
    planes_alloc(&want, img->w, img->h, alpha);
    if (path < 0)
        wb_rgba_to_yuv420(img, got.p, got.ls);
    else
        wb_rgba_to_yuv420_path((WbYuvPath)path, img, got.p, got.ls);
    reference(img, want.p, want.ls);
    static const char *name[4] = {"Y", "U", "V", "A"};
    for (int p = 0; p < 4; p++)
        for (int y = 0; y < got.rows[p]; y++)
            for (int x = 0; x < got.ls[p]; x++) {
                size_t o = (size_t)y * (size_t)got.ls[p] + (size_t)x;
                if (got.p[p][o] != want.p[p][o])
                    cr_assert_fail("path %d, %s %dx%d%s: %s[%d][%d] = %d, want %d", path, what,
                                   img->w, img->h, alpha ? " +alpha" : "", name[p], y, x,
                                   got.p[p][o], want.p[p][o]);
            }
    planes_free(&got);
    planes_free(&want);
}

Test(io, yuv420_every_path_matches_the_formula_on_awkward_sizes)
{
    /* Widths around the vector steps (4, 8, 16, 32 pixels) and the tail
     * lengths after them, odd and even heights; rows carry padding with
     * random bytes that must not leak into the planes. */
    static const int ws[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  15, 16, 17, 18, 23, 24, 25,
                             31, 32, 33, 34, 47, 48, 49, 63, 64, 65, 66, 79, 95, 97, 130, 257};
    static const int hs[] = {1, 2, 3, 4, 5, 8};
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    int paths = 0;
    for (int path = WB_YUV_BASELINE; path < WB_YUV_PATHS; path++) {
        if (!wb_yuv_path_available((WbYuvPath)path))
            continue;
        paths++;
        for (size_t a = 0; a < sizeof ws / sizeof ws[0]; a++)
            for (size_t b = 0; b < sizeof hs / sizeof hs[0]; b++)
                for (int mode = 0; mode < 3; mode++) {
                    /* Noise and ramps with 3 spare pixels per row; the
                     * extremes in a buffer that ends right after the last
                     * pixel, so that a read past it trips ASan. */
                    int pad = mode == 1 ? 0 : 3;
                    WbImage img = {.w = ws[a], .h = hs[b], .stride = 4 * (ws[a] + pad)};
                    img.px = malloc((size_t)img.stride * (size_t)img.h);
                    cr_assert(img.px);
                    WbImage full = img;
                    full.w = ws[a] + pad;
                    fill(&full, full.w, &rng, mode);
                    static const char *what[3] = {"noise", "extremes", "ramps"};
                    compare_path(path, &img, false, what[mode]);
                    compare_path(path, &img, true, what[mode]);
                    free(img.px);
                }
    }
    cr_expect_geq(paths, 1);
}

Test(io, yuv420_matches_the_formula_at_1080p)
{
    /* One full-HD frame of noise through the entry point the sink uses,
     * with and without alpha. */
    WbImage img;
    WbError err;
    uint64_t rng = 12345;
    cr_assert_eq(wb_image_alloc(&img, 1920, 1080, &err), WB_OK);
    fill(&img, 1920, &rng, 0);
    compare_path(-1, &img, false, "1080p");
    compare_path(-1, &img, true, "1080p");
    wb_image_free(&img);
}

Test(io, yuv420_damage_converts_what_changed_and_nothing_else)
{
    /* An image converted in full; then random tiles change (and some that
     * did not change are flagged too).  Converting the flagged tiles over
     * the old planes must give exactly the planes of the new image, guard
     * bytes included, on every path: the chroma samples next to a run
     * (which read one changed column) are redone, nothing is written past a
     * run.  Leaving one changed tile out must show, or the test proves
     * nothing. */
    static const int sizes[][2] = {{37, 19}, {64, 16}, {70, 38}, {130, 21}, {257, 9}, {3, 3}};
    static const int tiles[][2] = {{16, 8}, {2, 2}, {6, 4}, {32, 2}};
    uint64_t rng = 0xD1B54A32D192ED03ull;
    int caught = 0, cases = 0;
    for (int path = WB_YUV_BASELINE; path < WB_YUV_PATHS; path++) {
        if (!wb_yuv_path_available((WbYuvPath)path))
            continue;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
                for (int alpha = 0; alpha < 2; alpha++) {
                    const int w = sizes[s][0], h = sizes[s][1];
                    const int tw = tiles[t][0], th = tiles[t][1];
                    const int nx = (w + tw - 1) / tw, ny = (h + th - 1) / th;
                    WbImage img;
                    WbError err;
                    cr_assert_eq(wb_image_alloc(&img, w, h, &err), WB_OK);
                    fill(&img, w, &rng, 2);
                    Planes old, got, want;
                    planes_alloc(&old, w, h, alpha);
                    planes_alloc(&got, w, h, alpha);
                    planes_alloc(&want, w, h, alpha);
                    reference(&img, old.p, old.ls);
                    uint8_t *flags = calloc((size_t)nx * (size_t)ny, 1);
                    int changed = -1;
                    for (int ty = 0; ty < ny; ty++)
                        for (int tx = 0; tx < nx; tx++) {
                            const uint64_t r = rng_next(&rng);
                            if (r % 3 == 0) { /* changes */
                                for (int y = ty * th; y < h && y < (ty + 1) * th; y++)
                                    for (int x = tx * tw; x < w && x < (tx + 1) * tw; x++)
                                        for (int c = 0; c < 4; c++)
                                            wb_image_row(&img, y)[4 * x + c] =
                                                (uint8_t)(rng_next(&rng) >> 56);
                                changed = ty * nx + tx;
                            }
                            flags[ty * nx + tx] = r % 3 == 0 || r % 5 == 0;
                        }
                    WbDamage d = wb_damage_init();
                    wb_damage_set_tiles(&d, tw, th, nx, ny, flags);
                    cr_assert_eq(d.kind, WB_DAMAGE_TILES);
                    reference(&img, want.p, want.ls);
                    planes_copy(&got, &old);
                    wb_rgba_to_yuv420_damage_path((WbYuvPath)path, &img, got.p, got.ls, &d);
                    cr_assert(planes_equal(&got, &want), "path %d, %dx%d, tiles %dx%d%s", path,
                              w, h, tw, th, alpha ? " +alpha" : "");
                    /* Nothing changed: nothing is written. */
                    d.kind = WB_DAMAGE_NONE;
                    planes_copy(&got, &old);
                    wb_rgba_to_yuv420_damage_path((WbYuvPath)path, &img, got.p, got.ls, &d);
                    cr_assert(planes_equal(&got, &old));
                    if (changed >= 0) {
                        cases++;
                        flags[changed] = 0;
                        wb_damage_set_tiles(&d, tw, th, nx, ny, flags);
                        planes_copy(&got, &old);
                        wb_rgba_to_yuv420_damage_path((WbYuvPath)path, &img, got.p, got.ls, &d);
                        caught += !planes_equal(&got, &want);
                    }
                    wb_damage_free(&d);
                    free(flags);
                    planes_free(&old);
                    planes_free(&got);
                    planes_free(&want);
                    wb_image_free(&img);
                }
    }
    cr_expect_gt(cases, 0);
    cr_expect_eq(caught, cases, "an understated damage went unnoticed %d times of %d",
                 cases - caught, cases);
}

Test(io, yuv420_damage_with_a_grid_that_does_not_fit_converts_everything)
{
    /* Odd tiles would split a chroma block, and a grid of another image's
     * size says nothing about this one: both convert the whole image. */
    WbImage img;
    WbError err;
    uint64_t rng = 99;
    cr_assert_eq(wb_image_alloc(&img, 40, 20, &err), WB_OK);
    fill(&img, 40, &rng, 0);
    Planes got, want;
    planes_alloc(&got, 40, 20, false);
    planes_alloc(&want, 40, 20, false);
    reference(&img, want.p, want.ls);
    uint8_t none[64] = {0};
    WbDamage d = wb_damage_init();
    wb_damage_set_tiles(&d, 5, 4, 8, 5, none); /* odd width */
    wb_rgba_to_yuv420_damage(&img, got.p, got.ls, &d);
    cr_expect(planes_equal(&got, &want));
    memset(got.p[0], 0xA5, (size_t)got.ls[0] * 20); /* as fresh */
    wb_damage_set_tiles(&d, 8, 4, 4, 5, none); /* 32 columns of 40 */
    wb_rgba_to_yuv420_damage(&img, got.p, got.ls, &d);
    cr_expect(planes_equal(&got, &want));
    wb_damage_free(&d);
    planes_free(&got);
    planes_free(&want);
    wb_image_free(&img);
}

/* Tests of the photo view: an undeformed mesh reproduces the photo, fit
 * contain/cover place it as documented, the mask's two passes compose, and
 * frames do not depend on the thread count. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool.h"
#include "render/photo_view.h"
#include "render/raster.h"

/* A detailed, random-ish opaque photo. */
static void photo(WbImage *img, int w, int h, unsigned seed)
{
    cr_assert_eq(wb_image_alloc(img, w, h, NULL), WB_OK);
    for (int y = 0; y < h; y++) {
        uint8_t *row = wb_image_row(img, y);
        for (int x = 0; x < w; x++) {
            for (int ch = 0; ch < 3; ch++) {
                seed = seed * 1103515245u + 12345u;
                row[4 * x + ch] = (uint8_t)(seed >> 16);
            }
            row[4 * x + 3] = 255;
        }
    }
}

typedef struct Mesh {
    int grid;
    float *x, *y, *rx, *ry, *mask;
} Mesh;

static void mesh_init(Mesh *m, int grid, int w, int h)
{
    size_t n = (size_t)(grid + 1) * (size_t)(grid + 1);
    m->grid = grid;
    m->x = malloc(n * sizeof(float));
    m->y = malloc(n * sizeof(float));
    m->rx = malloc(n * sizeof(float));
    m->ry = malloc(n * sizeof(float));
    m->mask = malloc(n * sizeof(float));
    cr_assert(m->x && m->y && m->rx && m->ry && m->mask);
    wb_photo_view_rest(grid, w, h, m->rx, m->ry);
    memcpy(m->x, m->rx, n * sizeof(float));
    memcpy(m->y, m->ry, n * sizeof(float));
    memset(m->mask, 0, n * sizeof(float));
}

static void mesh_free(Mesh *m)
{
    free(m->x);
    free(m->y);
    free(m->rx);
    free(m->ry);
    free(m->mask);
}

static void draw(const WbImage *src, const Mesh *m, int w, int h, WbFit fit, int aa,
                 bool transparent, bool masked, WbPool *pool, WbImage *out)
{
    WbError err;
    WbPhotoViewDef def = {.image = src, .grid = m->grid, .width = w, .height = h, .fit = fit,
                          .background = {0, 0, 0, 1}, .transparent = transparent, .samples = aa};
    WbPhotoView v;
    cr_assert_eq(wb_photo_view_init(&v, &def, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(wb_image_alloc(out, w, h, &err), WB_OK);
    cr_assert_eq(wb_photo_view_draw(&v, pool, m->x, m->y, m->rx, m->ry, masked ? m->mask : NULL,
                                    out, &err),
                 WB_OK, "%s", err.msg);
    wb_photo_view_free(&v);
}

static int max_diff(const WbImage *a, const WbImage *b, int *at_x, int *at_y)
{
    int worst = 0;
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < 4 * a->w; x++) {
            int d = abs(wb_image_row(a, y)[x] - wb_image_row(b, y)[x]);
            if (d > worst) {
                worst = d;
                *at_x = x / 4;
                *at_y = y;
            }
        }
    return worst;
}

/* Fit contain at the photo's own size: every output pixel centre is a texel
 * centre, so an undeformed mesh gives the photo back. */
Test(raster, photo_identity_reproduces_the_image)
{
    const int sizes[][3] = {{61, 47, 8}, {47, 61, 13}, {64, 64, 64}, {100, 37, 50}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int w = sizes[i][0], h = sizes[i][1], grid = sizes[i][2];
        WbImage src, out;
        photo(&src, w, h, 1234u + (unsigned)i);
        Mesh m;
        mesh_init(&m, grid, w, h);
        const int aa[] = {1, 4, 8, 16};
        for (int a = 0; a < 4; a++) {
            draw(&src, &m, w, h, WB_FIT_CONTAIN, aa[a], false, false, NULL, &out);
            int x = 0, y = 0, d = max_diff(&src, &out, &x, &y);
            cr_assert_leq(d, 1, "%dx%d grid %d aa %d: differs by %d at (%d,%d)", w, h, grid, aa[a],
                          d, x, y);
            wb_image_free(&out);
        }
        mesh_free(&m);
        wb_image_free(&src);
    }
}

/* A 40×20 photo, left half red, right half blue, in a 100×100 output. */
static void halves(WbImage *img)
{
    cr_assert_eq(wb_image_alloc(img, 40, 20, NULL), WB_OK);
    for (int y = 0; y < 20; y++)
        for (int x = 0; x < 40; x++) {
            uint8_t *p = wb_image_row(img, y) + 4 * x;
            p[0] = x < 20 ? 255 : 0;
            p[2] = x < 20 ? 0 : 255;
            p[3] = 255;
        }
}

Test(raster, photo_fit_contain_letterboxes)
{
    WbImage src, out;
    halves(&src);
    Mesh m;
    mesh_init(&m, 16, 40, 20);
    /* Scale 2.5: the image is 100×50, rows 25..74; bars stay transparent. */
    draw(&src, &m, 100, 100, WB_FIT_CONTAIN, 4, true, false, NULL, &out);
    for (int x = 0; x < 100; x++) {
        cr_assert_eq(wb_image_row(&out, 24)[4 * x + 3], 0, "bar row 24 col %d", x);
        cr_assert_eq(wb_image_row(&out, 75)[4 * x + 3], 0, "bar row 75 col %d", x);
        cr_assert_eq(wb_image_row(&out, 25)[4 * x + 3], 255, "image row 25 col %d", x);
        cr_assert_eq(wb_image_row(&out, 74)[4 * x + 3], 255, "image row 74 col %d", x);
    }
    /* Column 10 maps to texel 4.2 (red), column 90 to 36.2 (blue). */
    const uint8_t *red = wb_image_row(&out, 50) + 4 * 10, *blue = wb_image_row(&out, 50) + 4 * 90;
    cr_assert(red[0] == 255 && red[2] == 0);
    cr_assert(blue[0] == 0 && blue[2] == 255);
    wb_image_free(&out);
    mesh_free(&m);
    wb_image_free(&src);
}

Test(raster, photo_fit_cover_crops_to_fill)
{
    WbImage src, out;
    halves(&src);
    Mesh m;
    mesh_init(&m, 16, 40, 20);
    /* Scale 5: the image is 200×100 centred, 50 px cropped left and right;
     * output column x shows texel (x + 50.5) / 5. */
    draw(&src, &m, 100, 100, WB_FIT_COVER, 4, true, false, NULL, &out);
    for (int y = 0; y < 100; y++)
        for (int x = 0; x < 100; x++)
            cr_assert_eq(wb_image_row(&out, y)[4 * x + 3], 255, "(%d,%d) not covered", x, y);
    const uint8_t *p47 = wb_image_row(&out, 50) + 4 * 47, *p52 = wb_image_row(&out, 50) + 4 * 52;
    cr_assert(p47[0] == 255 && p47[2] == 0, "texel 19.5 is red");
    cr_assert(p52[0] == 0 && p52[2] == 255, "texel 20.5 is blue");
    /* At x = 49, 50 the bilinear filter crosses the boundary (texels 19.9,
     * 20.1): mixed, symmetric. */
    const uint8_t *p49 = wb_image_row(&out, 50) + 4 * 49, *p50 = wb_image_row(&out, 50) + 4 * 50;
    cr_assert(abs(p49[0] - 153) <= 1 && abs(p49[2] - 102) <= 1, "%d %d", p49[0], p49[2]);
    cr_assert(abs(p50[0] - 102) <= 1 && abs(p50[2] - 153) <= 1, "%d %d", p50[0], p50[2]);
    wb_image_free(&out);
    mesh_free(&m);
    wb_image_free(&src);
}

/* Displace the centre of the mesh by a Gaussian grab. */
static void grab(Mesh *m, double dx, double dy)
{
    int n1 = m->grid + 1;
    for (int i = 0; i < n1 * n1; i++) {
        double gx = m->rx[i] - 0.6, gy = m->ry[i] - 0.5;
        double w = exp(-(gx * gx + gy * gy) / (2 * 0.15 * 0.15));
        m->x[i] = m->rx[i] + (float)(dx * w);
        m->y[i] = m->ry[i] + (float)(dy * w);
        double d = sqrt(gx * gx + gy * gy);
        m->mask[i] = (float)(d < 0.15 ? 1.0 : d > 0.25 ? 0.0 : (0.25 - d) / 0.1);
    }
}

Test(raster, photo_mask_passes_compose)
{
    WbImage src, still, zero, full, plain;
    photo(&src, 60, 50, 77);
    Mesh m;
    mesh_init(&m, 20, 60, 50);
    draw(&src, &m, 60, 50, WB_FIT_CONTAIN, 4, false, false, NULL, &still);
    grab(&m, 0.08, -0.05);

    /* A zero mask: the deformation is invisible, the photo is still. */
    memset(m.mask, 0, sizeof(float) * 21 * 21);
    draw(&src, &m, 60, 50, WB_FIT_CONTAIN, 4, false, true, NULL, &zero);
    cr_assert_eq(memcmp(zero.px, still.px, 60 * 50 * 4), 0);

    /* A full mask matches the unmasked deformed draw wherever the deformed
     * mesh covers the pixel fully (its second pass is opaque there).  Not
     * byte for byte: the unmasked frame takes the rasterizer's photo path,
     * which shades an interior pixel once from the triangle owning its
     * centre, where the masked pass stores in each sample the colour of the
     * triangle owning that sample (all shaded at the centre); the planes of
     * neighbouring triangles differ by the map's bend across a pixel, a few
     * levels on this coarse, strongly bent mesh. */
    int n1 = 21;
    for (int i = 0; i < n1 * n1; i++)
        m.mask[i] = 1.0f;
    draw(&src, &m, 60, 50, WB_FIT_CONTAIN, 4, false, true, NULL, &full);
    draw(&src, &m, 60, 50, WB_FIT_CONTAIN, 4, true, false, NULL, &plain);
    int same = 0;
    for (int i = 0; i < 60 * 50; i++)
        if (plain.px[4 * i + 3] == 255) {
            for (int k = 0; k < 4; k++)
                cr_assert_leq(abs(full.px[4 * i + k] - plain.px[4 * i + k]), 3, "pixel %d", i);
            same++;
        }
    cr_assert_gt(same, 2500);

    /* A soft mask: outside its support the frame is the still photo, and
     * the grabbed region differs from it. */
    grab(&m, 0.08, -0.05);
    WbImage soft;
    draw(&src, &m, 60, 50, WB_FIT_CONTAIN, 4, false, true, NULL, &soft);
    int changed = 0;
    for (int y = 0; y < 50; y++)
        for (int x = 0; x < 60; x++) {
            double gx = (x + 0.5) / 50.0 - 0.6, gy = (y + 0.5) / 50.0 - 0.5;
            const uint8_t *a = wb_image_row(&soft, y) + 4 * x, *b = wb_image_row(&still, y) + 4 * x;
            if (sqrt(gx * gx + gy * gy) > 0.37)
                cr_assert_eq(memcmp(a, b, 4), 0, "(%d,%d) outside the mask changed", x, y);
            changed += memcmp(a, b, 4) != 0;
        }
    cr_assert_gt(changed, 100);
    wb_image_free(&soft);
    wb_image_free(&still);
    wb_image_free(&zero);
    wb_image_free(&full);
    wb_image_free(&plain);
    mesh_free(&m);
    wb_image_free(&src);
}

Test(raster, photo_frames_do_not_depend_on_thread_count)
{
    WbImage src, ref, out;
    photo(&src, 300, 200, 5);
    Mesh m;
    mesh_init(&m, 64, 300, 200);
    grab(&m, 0.2, 0.1);
    draw(&src, &m, 250, 180, WB_FIT_CONTAIN, 4, true, true, NULL, &ref);
    for (int threads = 1; threads <= 4; threads++) {
        WbPool *pool;
        cr_assert_eq(wb_pool_create(&pool, threads, NULL), WB_OK);
        draw(&src, &m, 250, 180, WB_FIT_CONTAIN, 4, true, true, pool, &out);
        cr_assert_eq(memcmp(ref.px, out.px, 250 * 180 * 4), 0, "threads %d", threads);
        wb_image_free(&out);
        wb_pool_destroy(pool);
    }
    wb_image_free(&ref);
    mesh_free(&m);
    wb_image_free(&src);
}

/* The photo path writes flat pixels straight into the output rows (opaque
 * background): an output whose rows are padded (stride > 4·w, a view into
 * a wider buffer) gets the same pixels as a tight one, and the padding and
 * the columns beside the view stay untouched, transparent background or
 * opaque. */
Test(raster, photo_frames_into_a_padded_image_equal_a_tight_one)
{
    WbImage src;
    photo(&src, 300, 200, 9);
    Mesh m;
    mesh_init(&m, 64, 300, 200);
    grab(&m, 0.15, -0.05);
    WbError err;
    for (int transparent = 0; transparent < 2; transparent++) {
        WbPhotoViewDef def = {.image = &src, .grid = 64, .width = 250, .height = 180,
                              .fit = WB_FIT_CONTAIN, .background = {0.1, 0.5, 0.3, 1},
                              .transparent = transparent, .samples = 4};
        WbPhotoView v;
        WbImage tight, wide;
        cr_assert_eq(wb_photo_view_init(&v, &def, &err), WB_OK, "%s", err.msg);
        cr_assert_eq(wb_image_alloc(&tight, 250, 180, &err), WB_OK);
        cr_assert_eq(wb_photo_view_draw(&v, NULL, m.x, m.y, m.rx, m.ry, NULL, &tight, &err), WB_OK);
        wb_photo_view_free(&v);
        /* A 250-wide view at column 7 of a 270-wide buffer full of 0xA5. */
        cr_assert_eq(wb_image_alloc(&wide, 270, 180, &err), WB_OK);
        memset(wide.px, 0xA5, (size_t)wide.stride * 180);
        WbImage view = {.px = wide.px + 4 * 7, .w = 250, .h = 180, .stride = wide.stride};
        cr_assert_eq(wb_photo_view_init(&v, &def, &err), WB_OK, "%s", err.msg);
        cr_assert_eq(wb_photo_view_draw(&v, NULL, m.x, m.y, m.rx, m.ry, NULL, &view, &err), WB_OK);
        wb_photo_view_free(&v);
        for (int y = 0; y < 180; y++) {
            const uint8_t *row = wide.px + (size_t)y * (size_t)wide.stride;
            cr_assert_eq(memcmp(row + 4 * 7, tight.px + (size_t)y * (size_t)tight.stride, 4 * 250), 0,
                         "transparent %d row %d", transparent, y);
            for (int x = 0; x < 270; x++)
                if (x < 7 || x >= 257)
                    for (int c = 0; c < 4; c++)
                        cr_assert_eq(row[4 * x + c], 0xA5, "padding at (%d, %d) written", x, y);
        }
        wb_image_free(&tight);
        wb_image_free(&wide);
    }
    mesh_free(&m);
    wb_image_free(&src);
}

/* A 0.1 px shift of the whole mesh changes the frame a little, not by a
 * whole-pixel jump: the mean change is about 0.1 of a 1 px shift's. */
Test(raster, photo_sub_pixel_shift_is_smooth)
{
    WbImage src, a, b, c;
    cr_assert_eq(wb_image_alloc(&src, 64, 64, NULL), WB_OK);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            uint8_t *p = wb_image_row(&src, y) + 4 * x;
            p[0] = p[1] = p[2] = (uint8_t)(127.5 + 127.5 * sin(x * 0.3));
            p[3] = 255;
        }
    Mesh m;
    mesh_init(&m, 16, 64, 64);
    draw(&src, &m, 64, 64, WB_FIT_CONTAIN, 4, false, false, NULL, &a);
    int n1 = 17;
    for (int i = 0; i < n1 * n1; i++)
        m.x[i] = m.rx[i] + 0.1f / 64.0f;
    draw(&src, &m, 64, 64, WB_FIT_CONTAIN, 4, false, false, NULL, &b);
    for (int i = 0; i < n1 * n1; i++)
        m.x[i] = m.rx[i] + 1.0f / 64.0f;
    draw(&src, &m, 64, 64, WB_FIT_CONTAIN, 4, false, false, NULL, &c);
    double dab = 0, dac = 0;
    for (int y = 0; y < 64; y++)
        for (int x = 8; x < 56; x++) {
            dab += abs(wb_image_row(&a, y)[4 * x] - wb_image_row(&b, y)[4 * x]);
            dac += abs(wb_image_row(&a, y)[4 * x] - wb_image_row(&c, y)[4 * x]);
        }
    cr_assert_gt(dab, 0.0, "a 0.1 px shift must change the frame");
    cr_assert_float_eq(dab / dac, 0.1, 0.03, "ratio %.3f", dab / dac);
    wb_image_free(&a);
    wb_image_free(&b);
    wb_image_free(&c);
    mesh_free(&m);
    wb_image_free(&src);
}

Test(raster, photo_view_rejects_bad_definitions)
{
    WbImage src;
    photo(&src, 10, 10, 1);
    WbPhotoViewDef def = {.image = &src, .grid = 0, .width = 10, .height = 10, .samples = 4};
    WbPhotoView v;
    WbError err;
    cr_assert_eq(wb_photo_view_init(&v, &def, &err), WB_E_INPUT);
    def.grid = 4;
    def.samples = 2;
    cr_assert_eq(wb_photo_view_init(&v, &def, &err), WB_E_INPUT);
    wb_image_free(&src);
}

/* One view drawing a sequence of frames keeps its rest pass between masked
 * frames: each frame must equal the same frame drawn by a fresh view, also
 * after an unmasked frame, after the rest positions change (in place, same
 * arrays), and with two threads. */
Test(raster, photo_kept_rest_pass_equals_fresh_frames)
{
    WbImage src, got, want;
    photo(&src, 90, 70, 31);
    Mesh m;
    mesh_init(&m, 24, 90, 70);
    WbPool *pool;
    cr_assert_eq(wb_pool_create(&pool, 2, NULL), WB_OK);
    WbError err;
    WbPhotoViewDef def = {.image = &src, .grid = 24, .width = 80, .height = 64,
                          .fit = WB_FIT_CONTAIN, .background = {0.2, 0.3, 0.4, 1}, .samples = 4};
    WbPhotoView v;
    cr_assert_eq(wb_photo_view_init(&v, &def, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(wb_image_alloc(&got, 80, 64, &err), WB_OK);
    const struct { double dx, dy; bool masked; bool move_rest; } seq[] = {
        {0.05, 0.02, true, false},  {0.09, -0.03, true, false}, {0.02, 0.07, false, false},
        {-0.06, 0.04, true, false}, {0.04, 0.05, true, true},   {0.07, 0.01, true, false},
    };
    int n1 = 25;
    for (size_t f = 0; f < sizeof seq / sizeof seq[0]; f++) {
        if (seq[f].move_rest)
            for (int i = 0; i < n1 * n1; i++)
                m.rx[i] += 0.01f;
        grab(&m, seq[f].dx, seq[f].dy);
        cr_assert_eq(wb_photo_view_draw(&v, pool, m.x, m.y, m.rx, m.ry,
                                        seq[f].masked ? m.mask : NULL, &got, &err),
                     WB_OK, "%s", err.msg);
        WbPhotoView fresh;
        cr_assert_eq(wb_photo_view_init(&fresh, &def, &err), WB_OK, "%s", err.msg);
        cr_assert_eq(wb_image_alloc(&want, 80, 64, &err), WB_OK);
        cr_assert_eq(wb_photo_view_draw(&fresh, NULL, m.x, m.y, m.rx, m.ry,
                                        seq[f].masked ? m.mask : NULL, &want, &err),
                     WB_OK, "%s", err.msg);
        cr_assert_eq(memcmp(got.px, want.px, 80 * 64 * 4), 0, "frame %zu", f);
        wb_photo_view_free(&fresh);
        wb_image_free(&want);
    }
    wb_photo_view_free(&v);
    wb_image_free(&got);
    wb_pool_destroy(pool);
    mesh_free(&m);
    wb_image_free(&src);
}

/* Wavy, jittered deformations: folds (the mesh overlapping itself), cells
 * stretched past 32 pixels, cells squeezed below one. */
static void warp(Mesh *m, unsigned seed, double amp, double jitter)
{
    int n1 = m->grid + 1;
    for (int i = 0; i < n1 * n1; i++) {
        seed = seed * 1103515245u + 12345u;
        double j1 = (double)(seed >> 8 & 0xFFFF) / 65536.0 - 0.5;
        seed = seed * 1103515245u + 12345u;
        double j2 = (double)(seed >> 8 & 0xFFFF) / 65536.0 - 0.5;
        m->x[i] = m->rx[i] + (float)(amp * sin(9.0 * m->ry[i] + 3.0 * m->rx[i]) + jitter * j1);
        m->y[i] = m->ry[i] + (float)(amp * cos(7.0 * m->rx[i] - 2.0 * m->ry[i]) + jitter * j2);
    }
}

/* The flat cells drawn and the vertices converted eight per AVX2 vector
 * (their pixels shaded sixteen per AVX-512 vector where the CPU has it, or
 * eight) give the very bytes of doing them one at a time: overlaps, odd grid
 * widths, and vertices far off screen (past the fixed-point clamp), -0,
 * denormal, NaN and infinite included. */
Test(raster, photo_cell_groups_equal_one_cell_at_a_time)
{
    WbImage src, a, b;
    photo(&src, 120, 90, 5);
    const struct { int grid, w, h, aa; double amp, jitter; } cases[] = {
        {37, 160, 120, 4, 0.02, 0.004}, {64, 331, 197, 4, 0.12, 0.01}, {24, 640, 480, 8, 0.05, 0.0},
        {97, 200, 150, 4, 0.3, 0.02},   {8, 1000, 700, 4, 0.06, 0.0},  {50, 97, 301, 16, 0.01, 0.03},
        {40, 200, 160, 4, 0.0, 0.05},   {40, 260, 200, 4, 0.0, 0.03},  {30, 300, 240, 4, 0.01, 0.06},
        {100, 200, 150, 4, 0.0, 0.01},  {100, 240, 180, 4, 0.0, 0.015}, {120, 300, 200, 4, 0.002, 0.008},
        {45, 200, 150, 4, 0.01, 0.004}, {45, 200, 150, 4, 0.01, 0.004},
        {45, 200, 150, 4, 0.01, 0.004},
    };
    const size_t odd_from = sizeof cases / sizeof cases[0] - 3; /* the last three */
    WbError err;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Mesh m;
        mesh_init(&m, cases[c].grid, 120, 90);
        warp(&m, (unsigned)c + 1, cases[c].amp, cases[c].jitter);
        if (c >= odd_from) {
            static const float odd[] = {3.0e6f, -7.5e5f, 1.0e-40f, -0.0f, 4096.5f, -1.0e9f, 0.5f};
            const int n = (cases[c].grid + 1) * (cases[c].grid + 1);
            for (int i = 5, k = 0; i < n; i += 41, k++) {
                m.x[i] = odd[k % 7];
                m.y[i] = odd[(k + 3) % 7];
            }
            /* Then the general path (not a photo frame): a vertex whose
             * y alone is infinite, one whose x alone is NaN. */
            if (c == odd_from + 1)
                m.y[n / 3] = INFINITY;
            if (c == odd_from + 2)
                m.x[n / 2] = NAN;
        }
        WbPhotoViewDef def = {.image = &src, .grid = cases[c].grid, .width = cases[c].w,
                              .height = cases[c].h, .fit = WB_FIT_CONTAIN,
                              .background = {0.1, 0.2, 0.3, 1}, .samples = cases[c].aa};
        WbPhotoView v1, v8;
        cr_assert_eq(wb_photo_view_init(&v1, &def, &err), WB_OK, "%s", err.msg);
        cr_assert_eq(wb_photo_view_init(&v8, &def, &err), WB_OK, "%s", err.msg);
        v1.raster.one_at_a_time = true;
        cr_assert_eq(wb_image_alloc(&a, cases[c].w, cases[c].h, &err), WB_OK);
        cr_assert_eq(wb_image_alloc(&b, cases[c].w, cases[c].h, &err), WB_OK);
        cr_assert_eq(wb_photo_view_draw(&v1, NULL, m.x, m.y, m.rx, m.ry, NULL, &a, &err), WB_OK);
        int x = 0, y = 0;
        wb_raster_carry_over(&v8.raster, false); /* draw it all, twice */
        for (int narrow = 0; narrow < 2; narrow++) {
            v8.raster.no_avx512 = narrow;
            cr_assert_eq(wb_photo_view_draw(&v8, NULL, m.x, m.y, m.rx, m.ry, NULL, &b, &err),
                         WB_OK);
            cr_assert_eq(max_diff(&a, &b, &x, &y), 0, "case %zu%s differs at (%d, %d)", c,
                         narrow ? " (no AVX-512)" : "", x, y);
        }
        wb_image_free(&a);
        wb_image_free(&b);
        wb_photo_view_free(&v1);
        wb_photo_view_free(&v8);
        mesh_free(&m);
    }
    wb_image_free(&src);
}

/* The group check against a pixel-by-pixel count: eight or sixteen random
 * lanes (masks inside each lane's own box), some laid out left to right as
 * a mesh's cells are, some anywhere.  Whenever two lanes share a pixel the
 * answer must be 0; when none do and the group fits the check's bitmap
 * (64 columns, 32 rows), 1.  One width; false when this build or CPU has
 * no such path. */
static bool group_check_counts(int lanes)
{
    unsigned seed = 7;
#define RND(n) ((int)((seed = seed * 1103515245u + 12345u) >> 8) % (n))
    int owned = 0, shared = 0;
    for (int trial = 0; trial < 20000; trial++) {
        const int W = 1 + RND(8), H = 1 + RND(32 / W < 8 ? 32 / W : 8);
        uint32_t mask[16];
        int32_t c0[16], r0[16], wx[16];
        const bool rightward = RND(2), spread = RND(8) == 0;
        const int step = RND(W + 1);
        for (int l = 0; l < lanes; l++) {
            c0[l] = rightward ? 100 + l * step + RND(2) : 100 + RND(spread ? 80 : 12);
            r0[l] = 50 + RND(spread ? 40 : 3);
            wx[l] = RND(W);
            const int hy = RND(H);
            mask[l] = 0;
            if (RND(6) == 0)
                continue; /* a lane covering nothing */
            for (int dy = 0; dy <= hy; dy++)
                for (int dx = 0; dx <= wx[l]; dx++)
                    if (RND(3))
                        mask[l] |= 1u << (dy * W + dx);
        }
        /* Count: the lanes covering each pixel of a 300×100 window. */
        static uint8_t hits[100][300];
        memset(hits, 0, sizeof hits);
        bool twice = false;
        int32_t gx0 = INT32_MAX, gx1 = INT32_MIN, gy0 = INT32_MAX, gy1 = INT32_MIN;
        for (int l = 0; l < lanes; l++) {
            if (mask[l]) {
                gx0 = c0[l] < gx0 ? c0[l] : gx0;
                gx1 = c0[l] > gx1 ? c0[l] : gx1;
                gy0 = r0[l] < gy0 ? r0[l] : gy0;
                gy1 = r0[l] > gy1 ? r0[l] : gy1;
            }
            for (int k = 0; k < H * W; k++)
                if (mask[l] >> k & 1)
                    twice |= ++hits[r0[l] + k / W][c0[l] + k % W] > 1;
        }
        const int got = wb_raster_group_owns_pixels(lanes, mask, c0, r0, wx, W, H);
        if (got < 0)
            return false;
        if (twice) {
            cr_assert_eq(got, 0, "%d lanes, trial %d: a pixel is covered twice", lanes, trial);
            shared++;
        } else if (gx0 > gx1 || (gx1 - gx0 + W <= 64 && gy1 - gy0 + H <= 32)) {
            cr_assert_eq(got, 1, "%d lanes, trial %d: no pixel is covered twice", lanes, trial);
            owned++;
        }
    }
#undef RND
    cr_assert_gt(shared, 1000, "%d lanes", lanes);
    cr_assert_gt(owned, 1000, "%d lanes", lanes);
    return true;
}

Test(raster, group_overlap_check_equals_counting_pixels)
{
    if (!group_check_counts(8))
        cr_skip_test("no AVX2 group path here");
    group_check_counts(16); /* where the CPU has AVX-512 */
}

/* The mesh at rest but for patch (i0..i0+5, j0..j0+5), moved by (dx, dy)
 * grid units. */
static void move_patch(Mesh *m, int i0, int j0, double dx, double dy)
{
    const int n1 = m->grid + 1;
    memcpy(m->x, m->rx, (size_t)(n1 * n1) * sizeof(float));
    memcpy(m->y, m->ry, (size_t)(n1 * n1) * sizeof(float));
    for (int j = j0; j < j0 + 6 && j < n1; j++)
        for (int i = i0; i < i0 + 6 && i < n1; i++) {
            m->x[j * n1 + i] += (float)dx;
            m->y[j * n1 + i] += (float)dy;
        }
}

/* got must equal what a fresh view draws of the unmasked mesh m. */
static void expect_fresh_frame(const WbPhotoViewDef *def, const Mesh *m, const WbImage *got,
                               size_t frame)
{
    WbError err;
    WbPhotoView fresh;
    WbImage want;
    cr_assert_eq(wb_photo_view_init(&fresh, def, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(wb_image_alloc(&want, def->width, def->height, &err), WB_OK);
    cr_assert_eq(wb_photo_view_draw(&fresh, NULL, m->x, m->y, m->rx, m->ry, NULL, &want, &err),
                 WB_OK, "%s", err.msg);
    int x = 0, y = 0;
    cr_assert_eq(max_diff(got, &want, &x, &y), 0, "frame %zu differs at (%d, %d)", frame, x, y);
    wb_photo_view_free(&fresh);
    wb_image_free(&want);
}

/* Carrying unchanged pixels over from the last frame gives the bytes of
 * drawing each frame afresh: moves of a small patch (sub-pixel, several
 * pixels, out and back), still frames, a fold, a change of texture
 * coordinates, and a frame with a NaN vertex (the general path) between
 * photo frames. */
Test(raster, photo_carried_over_frames_equal_fresh_frames)
{
    WbImage src, got;
    photo(&src, 90, 70, 13);
    Mesh m;
    const int grid = 40, n1 = grid + 1;
    mesh_init(&m, grid, 90, 70);
    WbPool *pool;
    cr_assert_eq(wb_pool_create(&pool, 2, NULL), WB_OK);
    WbError err;
    WbPhotoViewDef def = {.image = &src, .grid = grid, .width = 300, .height = 230,
                          .fit = WB_FIT_CONTAIN, .background = {0.3, 0.2, 0.1, 1}, .samples = 4};
    WbPhotoView v;
    cr_assert_eq(wb_photo_view_init(&v, &def, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(wb_image_alloc(&got, 300, 230, &err), WB_OK);
    /* Patch (i0..i0+5, j0..j0+5) moved by (dx, dy) grid units. */
    const struct { int i0, j0; double dx, dy; int fold; int uv; int nan; } seq[] = {
        {10, 10, 0.0, 0.0, 0, 0, 0},    {10, 10, 0.0004, 0.0, 0, 0, 0}, {10, 10, 0.0004, 0.0, 0, 0, 0},
        {10, 10, 0.03, 0.01, 0, 0, 0},  {25, 5, 0.0, -0.02, 0, 0, 0},   {25, 5, 0.0, 0.0, 0, 0, 0},
        {0, 30, 0.05, 0.05, 0, 0, 0},   {18, 18, 0.0, 0.0, 1, 0, 0},    {18, 18, 0.0, 0.0, 0, 0, 0},
        {20, 8, 0.0, 0.12, 0, 0, 0},    {20, 8, 0.0, 0.0, 0, 0, 0},     {8, 20, -0.15, 0.0, 0, 0, 0},
        {8, 20, 0.0, 0.0, 0, 0, 0},
        {5, 5, 0.001, 0.0, 0, 1, 0},    {5, 5, 0.001, 0.0, 0, 1, 0},    {30, 30, 0.0, 0.0, 0, 0, 1},
        {30, 30, 0.01, 0.0, 0, 0, 0},   {34, 0, 0.0, 0.04, 0, 0, 0},
    };
    for (size_t f = 0; f < sizeof seq / sizeof seq[0]; f++) {
        move_patch(&m, seq[f].i0, seq[f].j0, seq[f].dx, seq[f].dy);
        if (seq[f].fold) /* a column pushed past its neighbours */
            for (int j = 15; j < 22; j++)
                m.x[j * n1 + 18] += 0.08f;
        if (seq[f].uv)
            m.rx[7 * n1 + 7] += 0.002f;
        if (seq[f].nan)
            m.x[3 * n1 + 3] = NAN;
        cr_assert_eq(wb_photo_view_draw(&v, pool, m.x, m.y, m.rx, m.ry, NULL, &got, &err), WB_OK,
                     "%s", err.msg);
        expect_fresh_frame(&def, &m, &got, f);
    }
    wb_photo_view_free(&v);
    wb_image_free(&got);
    wb_pool_destroy(pool);
    mesh_free(&m);
    wb_image_free(&src);
}

/* The view's damage for the frame just drawn covers every pixel that
 * differs from what the image held before; true when it was a tile grid
 * leaving some tile out (a frame carried over). */
static bool expect_damage_covers(const WbPhotoView *v, const WbImage *before, const WbImage *after,
                                 size_t frame)
{
    WbDamage d = wb_damage_init();
    wb_photo_view_damage(v, &d);
    bool partial = false;
    if (d.kind == WB_DAMAGE_TILES) {
        cr_assert_eq(d.tiles_x, (after->w + d.tile_w - 1) / d.tile_w);
        cr_assert_eq(d.tiles_y, (after->h + d.tile_h - 1) / d.tile_h);
        for (int y = 0; y < after->h; y++)
            for (int x = 0; x < after->w; x++)
                if (memcmp(wb_image_row(before, y) + 4 * x, wb_image_row(after, y) + 4 * x, 4))
                    cr_assert(d.tiles[(y / d.tile_h) * d.tiles_x + x / d.tile_w],
                              "frame %zu: pixel (%d, %d) changed outside the damage", frame, x, y);
        for (int i = 0; i < d.tiles_x * d.tiles_y; i++)
            partial |= !d.tiles[i];
    } else {
        cr_assert_eq(d.kind, WB_DAMAGE_ALL, "frame %zu", frame);
    }
    wb_damage_free(&d);
    return partial;
}

/* The raster remembers what each of the last two output images was drawn
 * from: a caller alternating images (the CLI encodes one while it draws the
 * next) gets each frame drawn over the one two frames back, a third image
 * takes over the least recently used memory, and after the caller scribbles
 * on an image and says so (wb_raster_carry_over again) nothing stale
 * survives.  Every frame must equal a fresh view's: carrying over against
 * the wrong image's vertices leaves the patch's old position in it, and a
 * carried-over tile that the cells drawn around a moved patch may reach
 * must get its pixels back (the photo is partly translucent: blended
 * twice, they would differ). */
Test(raster, photo_carried_over_into_alternating_outputs_equal_fresh_frames)
{
    WbImage src, out[3];
    photo(&src, 90, 70, 17);
    /* Translucent patches: an unmoved cell drawn again over pixels it
     * already blended into would blend twice. */
    for (int y = 0; y < 70; y++)
        for (int x = 0; x < 90; x++)
            if ((x / 7 + y / 5) % 3 == 0)
                wb_image_row(&src, y)[4 * x + 3] = 90;
    Mesh m;
    const int grid = 40;
    mesh_init(&m, grid, 90, 70);
    WbPool *pool;
    cr_assert_eq(wb_pool_create(&pool, 2, NULL), WB_OK);
    WbError err;
    WbPhotoViewDef def = {.image = &src, .grid = grid, .width = 300, .height = 230,
                          .fit = WB_FIT_CONTAIN, .background = {0.3, 0.2, 0.1, 1}, .samples = 4};
    WbPhotoView v;
    cr_assert_eq(wb_photo_view_init(&v, &def, &err), WB_OK, "%s", err.msg);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(wb_image_alloc(&out[i], 300, 230, &err), WB_OK);
    WbImage before; /* the image drawn into, as it was */
    cr_assert_eq(wb_image_alloc(&before, 300, 230, &err), WB_OK);
    int partial = 0;
    /* Patch (i0..i0+5, j0..j0+5) moved by (dx, dy) grid units, drawn into
     * out[o]; scribble: paint out[o] grey first and tell the raster. */
    const struct { int i0, j0; double dx, dy; int o; int scribble; } seq[] = {
        {10, 10, 0.0, 0.0, 0, 0},   {10, 10, 0.02, 0.0, 1, 0},  {10, 10, 0.04, 0.01, 0, 0},
        {10, 10, 0.04, 0.01, 1, 0}, {22, 6, 0.0, 0.03, 0, 0},   {22, 6, 0.0, 0.03, 0, 0},
        {22, 6, -0.05, 0.0, 1, 0},  {5, 25, 0.06, 0.02, 2, 0},  {5, 25, 0.0, 0.0, 0, 0},
        {5, 25, 0.0, -0.04, 1, 0},  {5, 25, 0.01, 0.0, 2, 0},   {30, 30, 0.02, 0.02, 1, 0},
        {30, 30, 0.02, 0.02, 1, 1}, {12, 18, 0.0, 0.05, 0, 0},  {12, 18, 0.0, 0.0, 1, 0},
    };
    for (size_t f = 0; f < sizeof seq / sizeof seq[0]; f++) {
        move_patch(&m, seq[f].i0, seq[f].j0, seq[f].dx, seq[f].dy);
        WbImage *got = &out[seq[f].o];
        if (seq[f].scribble) {
            memset(got->px, 0x80, (size_t)got->stride * (size_t)got->h);
            wb_raster_carry_over(&v.raster, true);
        }
        memcpy(before.px, got->px, (size_t)got->stride * (size_t)got->h);
        cr_assert_eq(wb_photo_view_draw(&v, pool, m.x, m.y, m.rx, m.ry, NULL, got, &err), WB_OK,
                     "%s", err.msg);
        expect_fresh_frame(&def, &m, got, f);
        partial += expect_damage_covers(&v, &before, got, f);
    }
    /* The seven frames drawn over the same image's last frame (2-6, 11
     * and 14) say which tiles they drew; the others, into an image new to
     * the raster, taken over or scribbled on, are drawn whole. */
    cr_expect_eq(partial, 7, "%d frames with partial damage", partial);
    wb_photo_view_free(&v);
    wb_image_free(&before);
    for (int i = 0; i < 3; i++)
        wb_image_free(&out[i]);
    wb_pool_destroy(pool);
    mesh_free(&m);
    wb_image_free(&src);
}

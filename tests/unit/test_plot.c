/* test_plot.c — text (FreeType) and charts (suite `plot`). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "render/plot.h"
#include "render/text.h"
#include "render/texture.h"

static WbFont *font;

static void open_font(void)
{
    WbError err = {0};
    cr_assert_eq(wb_font_open(NULL, &font, &err), WB_OK, "%s", err.msg);
}

static void close_font(void)
{
    wb_font_close(font);
    font = NULL;
}

static WbImage white_image(int w, int h)
{
    WbImage img;
    WbError err;
    cr_assert_eq(wb_image_alloc(&img, w, h, &err), WB_OK);
    memset(img.px, 255, (size_t)img.stride * (size_t)h);
    return img;
}

/* Bounding box of pixels differing from white, inclusive; false if none. */
static bool ink_box(const WbImage *img, int *x0, int *y0, int *x1, int *y1)
{
    *x0 = img->w, *y0 = img->h, *x1 = -1, *y1 = -1;
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++) {
            const uint8_t *p = wb_image_row(img, y) + 4 * x;
            if (p[0] != 255 || p[1] != 255 || p[2] != 255) {
                *x0 = x < *x0 ? x : *x0;
                *x1 = x > *x1 ? x : *x1;
                *y0 = y < *y0 ? y : *y0;
                *y1 = y > *y1 ? y : *y1;
            }
        }
    return *x1 >= 0;
}

static const uint8_t *pixel(const WbImage *img, int x, int y)
{
    return wb_image_row(img, y) + 4 * x;
}

static bool is_color(const uint8_t *p, uint32_t c, int tol)
{
    return abs(p[0] - (int)WB_RGBA_R(c)) <= tol && abs(p[1] - (int)WB_RGBA_G(c)) <= tol &&
           abs(p[2] - (int)WB_RGBA_B(c)) <= tol;
}

TestSuite(plot, .init = open_font, .fini = close_font);

Test(plot, utf8_decoding)
{
    const char *s = "a\xce\xb6\xe2\x88\x92\xf0\x9f\x98\x80";
    cr_assert_eq(wb_utf8_next(&s), 'a');
    cr_assert_eq(wb_utf8_next(&s), 0x3B6);   /* ζ */
    cr_assert_eq(wb_utf8_next(&s), 0x2212);  /* − */
    cr_assert_eq(wb_utf8_next(&s), 0x1F600); /* 4 bytes */
    cr_assert_eq(wb_utf8_next(&s), 0);
    const char *bad = "\xff\xc0\x80\xe2\x88";
    cr_assert_eq(wb_utf8_next(&bad), 0xFFFD);
    cr_assert_eq(wb_utf8_next(&bad), 0xFFFD); /* overlong NUL */
    cr_assert_eq(wb_utf8_next(&bad), 0xFFFD); /* its continuation byte */
    cr_assert_eq(wb_utf8_next(&bad), 0xFFFD); /* truncated */
}

Test(plot, missing_font_names_its_path)
{
    WbFont *f = NULL;
    WbError err = {0};
    cr_assert_eq(wb_font_open("/no/such/font.ttf", &f, &err), WB_E_IO);
    cr_assert(strstr(err.msg, "/no/such/font.ttf"), "%s", err.msg);
    cr_assert_null(f);
}

Test(plot, empty_string_draws_nothing)
{
    WbImage img = white_image(64, 32);
    wb_text_draw(&img, font, "", 20, 10, 20, WB_ALIGN_LEFT, false, WB_RGBA(0, 0, 0, 255));
    wb_text_draw(&img, font, "", 20, 10, 20, WB_ALIGN_CENTER, true, WB_RGBA(0, 0, 0, 255));
    int x0, y0, x1, y1;
    cr_assert_not(ink_box(&img, &x0, &y0, &x1, &y1));
    WbTextMetrics m;
    wb_text_measure(font, "", 20, &m);
    cr_assert_eq(m.width, 0.0);
    wb_image_free(&img);
}

Test(plot, text_ink_lies_in_its_measured_box)
{
    WbImage img = white_image(200, 60);
    WbTextMetrics m;
    wb_text_measure(font, "Hxg", 20, &m);
    /* DejaVu Sans at 20 px: ascent ≈ 18.6, descent ≈ 4.7, three glyphs
     * ≈ 12 px each. */
    cr_assert(m.ascent > 15 && m.ascent < 22, "ascent %g", m.ascent);
    cr_assert(m.descent > 3 && m.descent < 7, "descent %g", m.descent);
    cr_assert(m.width > 25 && m.width < 45, "width %g", m.width);
    wb_text_draw(&img, font, "Hxg", 20, 30, 40, WB_ALIGN_LEFT, false, WB_RGBA(0, 0, 0, 255));
    int x0, y0, x1, y1;
    cr_assert(ink_box(&img, &x0, &y0, &x1, &y1));
    cr_assert(x0 >= 30 && x0 <= 33, "left %d", x0);         /* H's side bearing */
    cr_assert(x1 <= 30 + m.width + 1 && x1 >= 30 + 0.8 * m.width, "right %d", x1);
    /* H's top at the cap height (0.73 em), g's tail below the baseline. */
    cr_assert(y0 >= 40 - 0.73 * 20 - 1.5 && y0 <= 40 - 0.73 * 20 + 1.5, "top %d", y0);
    cr_assert(y1 >= 41 && y1 <= 40 + m.descent + 1, "bottom %d", y1);
    /* The stems are solid: the darkest pixel is black. */
    int darkest = 255;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
            darkest = pixel(&img, x, y)[0] < darkest ? pixel(&img, x, y)[0] : darkest;
    cr_assert_eq(darkest, 0);
    wb_image_free(&img);
}

Test(plot, alignment_and_vertical_text)
{
    WbTextMetrics m;
    wb_text_measure(font, "HHHH", 16, &m);
    WbImage img = white_image(120, 120);
    wb_text_draw(&img, font, "HHHH", 16, 60, 30, WB_ALIGN_CENTER, false, WB_RGBA(0, 0, 0, 255));
    int x0, y0, x1, y1;
    cr_assert(ink_box(&img, &x0, &y0, &x1, &y1));
    cr_assert(fabs(0.5 * (x0 + x1 + 1) - 60) <= 1.5, "centre %g", 0.5 * (x0 + x1 + 1));
    wb_image_free(&img);

    /* Turned 90° counter-clockwise: reads upward from the anchor, glyph
     * tops toward −x, so the ink is left of x and above y. */
    img = white_image(120, 120);
    wb_text_draw(&img, font, "HHHH", 16, 60, 100, WB_ALIGN_LEFT, true, WB_RGBA(0, 0, 0, 255));
    cr_assert(ink_box(&img, &x0, &y0, &x1, &y1));
    cr_assert(x1 < 60 && x0 >= 60 - 0.73 * 16 - 1.5, "x %d..%d", x0, x1);
    cr_assert(y1 < 100 && y1 >= 97 && y0 >= 100 - m.width - 1 && y0 <= 100 - 0.8 * m.width,
              "y %d..%d", y0, y1);
    wb_image_free(&img);
}

Test(plot, text_blends_colour_and_clips)
{
    WbImage img = white_image(40, 20);
    /* Half-transparent red: the darkest pixel is halfway to red, never past. */
    wb_text_draw(&img, font, "H", 30, -5, 25, WB_ALIGN_LEFT, false, WB_RGBA(255, 0, 0, 128));
    int gmin = 255;
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++) {
            const uint8_t *p = pixel(&img, x, y);
            cr_assert_eq(p[0], 255);
            cr_assert_eq(p[1], p[2]);
            cr_assert_eq(p[3], 255);
            gmin = p[1] < gmin ? p[1] : gmin;
        }
    cr_assert(gmin >= 126 && gmin <= 128, "%d", gmin);
    wb_image_free(&img);
}

/* A two-series chart with known data. */
static WbPlot two_lines(double *x, double *y1, double *y2)
{
    for (int i = 0; i < 11; i++) {
        x[i] = 0.1 * i;
        y1[i] = 0.13 + 0.074 * i; /* 0.13 .. 0.87 */
        y2[i] = 0.5;
    }
    WbPlot p = {.title = "Title", .x_title = "x (s)", .y_title = "y (m)"};
    p.series[p.n_series++] = (WbPlotSeries){.label = "rising", .x = x, .y = y1, .n = 11};
    p.series[p.n_series++] = (WbPlotSeries){.label = "flat", .x = x, .y = y2, .n = 11,
                                            .style = WB_PLOT_MARKERS};
    return p;
}

Test(plot, ranges_widen_to_nice_ticks_and_map_exactly)
{
    double x[11], y1[11], y2[11];
    WbPlot p = two_lines(x, y1, y2);
    WbPlotArea a;
    WbError err = {0};
    cr_assert_eq(wb_plot_layout(&p, font, 960, 600, &a, &err), WB_OK, "%s", err.msg);
    cr_assert(a.y_lo <= 0.13 && a.y_hi >= 0.87 && a.y_lo >= 0.0 && a.y_hi <= 1.0,
              "y %g..%g", a.y_lo, a.y_hi);
    cr_assert(fabs(a.y_lo / a.y_step - round(a.y_lo / a.y_step)) < 1e-9);
    cr_assert(fabs(a.y_hi / a.y_step - round(a.y_hi / a.y_step)) < 1e-9);
    cr_assert(a.x_lo == 0.0 && fabs(a.x_hi - 1.0) < 1e-12, "x %g..%g", a.x_lo, a.x_hi);
    double px, py;
    wb_plot_map(&a, a.x_lo, a.y_lo, &px, &py);
    cr_assert_eq(px, a.left);
    cr_assert_eq(py, a.bottom);
    wb_plot_map(&a, a.x_hi, a.y_hi, &px, &py);
    cr_assert_float_eq(px, a.right, 1e-9);
    cr_assert_float_eq(py, a.top, 1e-9);
    /* Text fits: the plot area leaves room on every side. */
    cr_assert(a.left > 40 && a.top > 20 && a.right < 960 - 5 && a.bottom < 600 - 40);
}

Test(plot, log_axis_maps_decades_evenly)
{
    double x[3] = {1, 2, 3}, y[3] = {0.02, 3, 400};
    WbPlot p = {.y_log = true};
    p.series[p.n_series++] = (WbPlotSeries){.x = x, .y = y, .n = 3};
    WbPlotArea a;
    WbError err = {0};
    cr_assert_eq(wb_plot_layout(&p, font, 800, 500, &a, &err), WB_OK, "%s", err.msg);
    cr_assert_float_eq(a.y_lo, 0.01, 1e-15);
    cr_assert_float_eq(a.y_hi, 1000, 1e-9);
    double px, p1, p2, p3;
    wb_plot_map(&a, 1, 0.1, &px, &p1);
    wb_plot_map(&a, 1, 1, &px, &p2);
    wb_plot_map(&a, 1, 10, &px, &p3);
    cr_assert_float_eq(p1 - p2, p2 - p3, 1e-9);
    cr_assert_float_eq(p1 - p2, (a.bottom - a.top) / 5, 1e-9);

    double neg[3] = {-1, 0, -2};
    p.series[0].y = neg;
    cr_assert_eq(wb_plot_layout(&p, font, 800, 500, &a, &err), WB_E_INPUT);
    cr_assert_eq(wb_plot_layout(&(WbPlot){0}, font, 800, 500, &a, &err), WB_E_INPUT);
}

Test(plot, data_lands_where_the_axes_say)
{
    /* Markers at the axes' minimum corner and in the middle of the range. */
    double x[2] = {0, 5}, y[2] = {0, 5}, lx[2] = {0, 10}, ly[2] = {0, 10};
    uint32_t red = WB_RGBA(200, 0, 0, 255), blue = WB_RGBA(0, 0, 200, 255);
    WbPlot p = {.x_lo = 0, .x_hi = 10, .y_lo = 0, .y_hi = 10};
    p.series[p.n_series++] = (WbPlotSeries){.x = lx, .y = ly, .n = 2, .color = blue, .width = 3};
    p.series[p.n_series++] = (WbPlotSeries){.x = x, .y = y, .n = 2, .color = red,
                                            .style = WB_PLOT_MARKERS, .marker = 5};
    WbImage img = white_image(640, 400);
    WbError err = {0};
    cr_assert_eq(wb_plot_draw(&p, font, &img, &err), WB_OK, "%s", err.msg);
    WbPlotArea a;
    cr_assert_eq(wb_plot_layout(&p, font, 640, 400, &a, &err), WB_OK);
    double px, py;
    wb_plot_map(&a, 5, 5, &px, &py);
    cr_assert(is_color(pixel(&img, (int)px, (int)py), red, 0));
    /* The point at the minimum lands on the axes' corner: the marker's
     * pixels just inside the frame are red. */
    wb_plot_map(&a, 0, 0, &px, &py);
    cr_assert_float_eq(px, a.left, 1e-12);
    cr_assert(is_color(pixel(&img, (int)a.left + 2, (int)a.bottom - 2), red, 0));
    /* The diagonal line passes through (2.5, 2.5) and (7.5, 7.5). */
    wb_plot_map(&a, 7.5, 7.5, &px, &py);
    cr_assert(is_color(pixel(&img, (int)px, (int)py), blue, 8));
    /* Outside the plot area, beyond the clip slack, no series colour. */
    for (int yy = 0; yy < (int)a.top - 4; yy++)
        for (int xx = 0; xx < img.w; xx++) {
            const uint8_t *q = pixel(&img, xx, yy);
            cr_assert(!(q[2] > q[0] + 60), "blue at %d,%d", xx, yy);
        }
    wb_image_free(&img);
}

Test(plot, legend_is_drawn_in_a_free_corner)
{
    double x[11], y1[11], y2[11];
    WbPlot p = two_lines(x, y1, y2);
    WbImage with = white_image(960, 600), without = white_image(960, 600);
    WbError err = {0};
    cr_assert_eq(wb_plot_draw(&p, font, &with, &err), WB_OK, "%s", err.msg);
    WbPlot q = p;
    q.series[0].label = NULL;
    q.series[1].label = "";
    cr_assert_eq(wb_plot_draw(&q, font, &without, &err), WB_OK, "%s", err.msg);
    WbPlotArea a;
    cr_assert_eq(wb_plot_layout(&p, font, 960, 600, &a, &err), WB_OK);
    /* The legend is what differs: a box inside the plot area, in a corner
     * the rising line does not cross (top left or bottom right), holding a
     * sample of the first series' colour. */
    int x0 = 960, y0 = 600, x1 = -1, y1b = -1;
    bool sample = false;
    for (int y = 0; y < 600; y++)
        for (int xx = 0; xx < 960; xx++) {
            const uint8_t *pa = pixel(&with, xx, y), *pb = pixel(&without, xx, y);
            if (memcmp(pa, pb, 4)) {
                x0 = xx < x0 ? xx : x0, x1 = xx > x1 ? xx : x1;
                y0 = y < y0 ? y : y0, y1b = y > y1b ? y : y1b;
                sample |= is_color(pa, wb_plot_color(0), 0);
            }
        }
    cr_assert(x1 >= 0, "no legend");
    cr_assert(sample, "no line sample in the legend");
    cr_assert(x0 > a.left && x1 < a.right && y0 > a.top && y1b < a.bottom);
    cr_assert(x1 - x0 > 60 && y1b - y0 > 30, "legend %dx%d", x1 - x0, y1b - y0);
    bool top_left = x0 < a.left + 20 && y0 < a.top + 20;
    bool bottom_right = x1 > a.right - 20 && y1b > a.bottom - 20;
    cr_assert(top_left || bottom_right, "legend at %d,%d..%d,%d", x0, y0, x1, y1b);
    wb_image_free(&with);
    wb_image_free(&without);
}

Test(plot, draw_is_deterministic_and_opaque)
{
    double x[11], y1[11], y2[11];
    WbPlot p = two_lines(x, y1, y2);
    p.bands[p.n_bands++] = (WbPlotBand){.y0 = 0.4, .y1 = 0.6, .label = "band",
                                        .color = WB_RGBA(0, 0, 0, 40)};
    p.series[0].dashed = true;
    WbImage a = white_image(700, 450), b = white_image(700, 450);
    WbError err = {0};
    cr_assert_eq(wb_plot_draw(&p, font, &a, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(wb_plot_draw(&p, font, &b, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(memcmp(a.px, b.px, (size_t)a.stride * 450), 0);
    cr_assert_not(wb_image_has_alpha(&a));
    int bx0, by0, bx1, by1;
    cr_assert(ink_box(&a, &bx0, &by0, &bx1, &by1));
    /* The text reaches near the edges but never touches them. */
    cr_assert(bx0 > 0 && by0 > 0 && bx1 < 699 && by1 < 449, "%d,%d..%d,%d", bx0, by0, bx1, by1);
    wb_image_free(&a);
    wb_image_free(&b);
}

Test(plot, too_small_an_image_is_an_input_error)
{
    double x[11], y1[11], y2[11];
    WbPlot p = two_lines(x, y1, y2);
    WbPlotArea a;
    WbError err = {0};
    cr_assert_eq(wb_plot_layout(&p, font, 100, 80, &a, &err), WB_E_INPUT);
    cr_assert(strstr(err.msg, "100x80"), "%s", err.msg);
}

Test(plot, bars_rise_from_zero_to_their_value_with_labels)
{
    double x[3] = {0, 1, 2}, y[3] = {0.25, 0.5, 0.75};
    uint32_t c = WB_RGBA(0, 100, 0, 255);
    WbPlot p = {.n_categories = 3, .categories = {"a", "b", "c"}, .y_lo = 0, .y_hi = 1};
    p.series[p.n_series++] = (WbPlotSeries){.x = x, .y = y, .n = 3, .color = c,
                                            .style = WB_PLOT_BARS, .value_format = "%.2f"};
    WbImage img = white_image(640, 400);
    WbError err = {0};
    cr_assert_eq(wb_plot_draw(&p, font, &img, &err), WB_OK, "%s", err.msg);
    WbPlotArea a;
    cr_assert_eq(wb_plot_layout(&p, font, 640, 400, &a, &err), WB_OK);
    cr_assert_float_eq(a.x_lo, -0.5, 1e-12);
    cr_assert_float_eq(a.x_hi, 2.5, 1e-12);
    for (int i = 0; i < 3; i++) {
        double px, top, base;
        wb_plot_map(&a, x[i], y[i], &px, &top);
        wb_plot_map(&a, x[i], 0, &px, &base);
        cr_assert(is_color(pixel(&img, (int)px, (int)(top + 2)), c, 0), "bar %d top", i);
        cr_assert(is_color(pixel(&img, (int)px, (int)(base - 2)), c, 0), "bar %d base", i);
        /* Just above the bar: background, then the value's ink higher up. */
        cr_assert(is_color(pixel(&img, (int)px, (int)(top - 2)), WB_RGBA(255, 255, 255, 255), 0));
        int ink = 0;
        for (int yy = (int)top - 30; yy < (int)top - 3; yy++)
            for (int xx = (int)px - 20; xx <= (int)px + 20; xx++)
                ink += pixel(&img, xx, yy)[0] < 128;
        cr_assert(ink > 10, "no value label over bar %d", i);
    }
    wb_image_free(&img);
}

/* plot.c — charts through raster.h and text.h (see plot.h). */
#include "render/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/raster.h"
#include "render/texture.h"

#define SAMPLES 8
#define MAX_TICKS 64
/* Lengths in px at the reference tick-label size of 15 px (a 600 px tall
 * image); every one scales by u = font size / 15, which each function
 * using them has in scope, so a chart looks the same at every size. */
#define TICK_LEN (6.0 * u)
#define MINOR_LEN (3.5 * u)
#define PAD (14.0 * u)        /* outer margin */
#define GAP (6.0 * u)         /* between a label and what it labels */
#define CLIP_SLACK (3.0 * u)  /* data may reach this far past the frame */

/* Okabe–Ito's colour-blind-safe palette (without its yellow, too pale on
 * white), then two darker extras. */
uint32_t wb_plot_color(int i)
{
    static const uint32_t pal[8] = {
        WB_RGBA(0, 114, 178, 255),  WB_RGBA(213, 94, 0, 255),  WB_RGBA(0, 158, 115, 255),
        WB_RGBA(204, 121, 167, 255), WB_RGBA(86, 180, 233, 255), WB_RGBA(230, 159, 0, 255),
        WB_RGBA(60, 60, 60, 255),   WB_RGBA(140, 90, 40, 255),
    };
    return pal[((i % 8) + 8) % 8];
}

static uint32_t premul(uint32_t c)
{
    return wb_rgba_premul(WB_RGBA_R(c) / 255.0, WB_RGBA_G(c) / 255.0, WB_RGBA_B(c) / 255.0,
                          WB_RGBA_A(c) / 255.0);
}

static uint32_t series_color(const WbPlot *p, int i)
{
    return p->series[i].color ? p->series[i].color : wb_plot_color(i);
}

static double font_px(const WbPlot *p, int h)
{
    if (p->font_px > 0)
        return p->font_px;
    double s = h / 40.0;
    return s < 11 ? 11 : s > 28 ? 28 : s;
}

/* ---- ranges and ticks ---- */

/* 1, 2 or 5 × 10^k: the smallest such step giving at most `target` steps
 * over span. */
static double nice_step(double span, double target)
{
    double raw = span / target;
    double mag = pow(10.0, floor(log10(raw)));
    double r = raw / mag;
    return (r <= 1.0 + 1e-9 ? 1.0 : r <= 2.0 + 1e-9 ? 2.0 : r <= 5.0 + 1e-9 ? 5.0 : 10.0) * mag;
}

/* Widen [lo, hi] to whole steps, with at most `target` steps. */
static void nice_range(double *lo, double *hi, double target, double *step)
{
    if (!(*hi > *lo)) {
        double d = *lo != 0.0 ? fabs(*lo) * 0.1 : 1.0;
        *lo -= d;
        *hi += d;
    }
    double s = nice_step(*hi - *lo, target);
    *lo = floor(*lo / s + 1e-9) * s;
    *hi = ceil(*hi / s - 1e-9) * s;
    *step = s;
}

typedef struct Tick {
    double v;        /* data value */
    bool major;      /* labelled, with a grid line */
    char text[32];
} Tick;

static void format_tick(double v, double step, char *out, size_t n)
{
    if (fabs(v) < step * 1e-9)
        v = 0.0;
    int dec = (int)ceil(-log10(step) - 1e-9);
    if (dec < 0)
        dec = 0;
    /* A typographic minus (U+2212): the hyphen is too short beside digits. */
    snprintf(out, n, "%s%.*f", v < 0 ? "\u2212" : "", dec, fabs(v));
}

static int linear_ticks(double lo, double hi, double step, Tick *t)
{
    int n = 0;
    for (long k = lround(lo / step); k <= lround(hi / step) && n < MAX_TICKS; k++) {
        t[n].v = (double)k * step;
        t[n].major = true;
        format_tick(t[n].v, step, t[n].text, sizeof t[n].text);
        n++;
    }
    return n;
}

/* Decades labelled ("0.01", "1", "100"; 1e−5 beyond), every `every`-th
 * one when they would crowd (the others keep tick and grid line), minor
 * ticks at 2..9 × 10^k when there are at most 5 decades. */
static int log_ticks(double lo, double hi, int every, Tick *t)
{
    int k0 = (int)lround(log10(lo)), k1 = (int)lround(log10(hi));
    bool minor = k1 - k0 <= 5;
    int n = 0;
    for (int k = k0; k <= k1 && n < MAX_TICKS; k++) {
        double d = pow(10.0, k);
        t[n].v = d;
        t[n].major = true;
        if (((k % every) + every) % every != 0) /* 1, 100, 10^4: round decades */
            t[n].text[0] = '\0';
        else if (k >= -4 && k <= 5)
            snprintf(t[n].text, sizeof t[n].text, "%.*f", k < 0 ? -k : 0, d);
        else
            snprintf(t[n].text, sizeof t[n].text, "1e%s%d", k < 0 ? "\u2212" : "", abs(k));
        n++;
        for (int m = 2; minor && k < k1 && m <= 9 && n < MAX_TICKS; m++) {
            t[n].v = m * d;
            t[n].major = false;
            t[n].text[0] = '\0';
            n++;
        }
    }
    return n;
}

static double unit(double fs)
{
    return fmax(0.8, fs / 15.0);
}

static bool finite_point(const WbPlot *p, const WbPlotSeries *s, int i)
{
    return isfinite(s->x[i]) && isfinite(s->y[i]) && (!p->y_log || s->y[i] > 0.0);
}

/* Everything the drawing needs besides the area: ticks and text sizes. */
typedef struct Layout {
    WbPlotArea a;
    Tick xt[MAX_TICKS], yt[MAX_TICKS];
    int n_xt, n_yt;
    double fs, fs_title, fs_axis, fs_y; /* font sizes, px (fs_y: the y title) */
    double u;                     /* length scale, see TICK_LEN */
} Layout;

static WbStatus do_layout(const WbPlot *p, WbFont *font, int w, int h, Layout *L, WbError *err)
{
    memset(L, 0, sizeof *L);
    if (w < 160 || h < 120)
        return wb_error_set(err, WB_E_INPUT, "plot: %dx%d is too small for a chart (160x120 at least)",
                            w, h);
    L->fs = font_px(p, h);
    L->fs_title = 1.3 * L->fs;
    L->fs_axis = 1.1 * L->fs;
    const double u = L->u = unit(L->fs);
    /* Titles wider than the image shrink to fit it. */
    WbTextMetrics m;
    if (p->title && *p->title) {
        wb_text_measure(font, p->title, L->fs_title, &m);
        if (m.width > w - 2 * PAD)
            L->fs_title *= 0.98 * (w - 2 * PAD) / m.width;
    }
    if (p->x_title && *p->x_title) {
        wb_text_measure(font, p->x_title, L->fs_axis, &m);
        if (m.width > w - 2 * PAD)
            L->fs_axis *= 0.98 * (w - 2 * PAD) / m.width;
    }
    L->fs_y = L->fs_axis;

    /* Data extent. */
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    bool bars = false;
    for (int s = 0; s < p->n_series; s++) {
        const WbPlotSeries *S = &p->series[s];
        double hw = S->style == WB_PLOT_BARS ? 0.5 * (S->bar_width > 0 ? S->bar_width : 0.6) : 0.0;
        bars |= S->style == WB_PLOT_BARS;
        for (int i = 0; i < S->n; i++) {
            if (!finite_point(p, S, i))
                continue;
            x0 = fmin(x0, S->x[i] - hw);
            x1 = fmax(x1, S->x[i] + hw);
            y0 = fmin(y0, S->y[i]);
            y1 = fmax(y1, S->y[i]);
        }
    }
    if (!(x0 <= x1))
        return wb_error_set(err, WB_E_INPUT, "plot: no finite data%s",
                            p->y_log ? " above 0 for the logarithmic axis" : "");
    for (int b = 0; b < p->n_bands; b++) {
        if (!p->y_log || p->bands[b].y0 > 0)
            y0 = fmin(y0, p->bands[b].y0);
        y1 = fmax(y1, p->bands[b].y1);
    }
    if (!p->y_log && (p->y_from_zero || bars)) {
        y0 = fmin(y0, 0.0);
        y1 = fmax(y1, 0.0);
    }

    WbPlotArea *a = &L->a;
    a->y_log = p->y_log;
    /* Tick density from the (not yet known) plot area, estimated from the
     * text around it: an x label per 6 label heights, a y label per 2.5. */
    double tx = fmax(3.0, (w - 10.0 * L->fs) / (6.0 * L->fs));
    double ty = fmax(3.0, (h - 2 * PAD - 6.5 * L->fs - 3 * GAP) / (2.5 * L->fs));
    if (p->n_categories > 0) {
        a->x_lo = -0.5;
        a->x_hi = p->n_categories - 0.5;
        a->x_step = 1.0;
        for (int i = 0; i < p->n_categories && i < MAX_TICKS; i++) {
            L->xt[i].v = i;
            L->xt[i].major = true;
            snprintf(L->xt[i].text, sizeof L->xt[i].text, "%s", p->categories[i]);
        }
        L->n_xt = p->n_categories;
    } else {
        a->x_lo = x0, a->x_hi = x1;
        if (p->x_lo < p->x_hi) {
            a->x_lo = p->x_lo, a->x_hi = p->x_hi;
            a->x_step = nice_step(a->x_hi - a->x_lo, tx);
        } else {
            nice_range(&a->x_lo, &a->x_hi, tx, &a->x_step);
        }
        double lo = ceil(a->x_lo / a->x_step - 1e-9) * a->x_step;
        double hi = floor(a->x_hi / a->x_step + 1e-9) * a->x_step;
        L->n_xt = linear_ticks(lo, hi, a->x_step, L->xt);
    }
    if (p->y_log) {
        if (p->y_lo > 0 && p->y_lo < p->y_hi) {
            a->y_lo = p->y_lo, a->y_hi = p->y_hi;
        } else {
            a->y_lo = pow(10.0, floor(log10(y0) + 1e-9));
            a->y_hi = pow(10.0, ceil(log10(y1) - 1e-9));
            if (!(a->y_hi > a->y_lo))
                a->y_hi = 10.0 * a->y_lo;
        }
        /* A label per decade needs ~1.5 label heights; the plot height is
         * estimated from the text that will sit above and below it. */
        double decades = log10(a->y_hi) - log10(a->y_lo);
        double est = h - 2 * PAD - 6.5 * L->fs - 3 * GAP;
        int every = (int)ceil(1.5 * L->fs / fmax(est / decades, 1.0));
        L->n_yt = log_ticks(a->y_lo, a->y_hi, every < 1 ? 1 : every, L->yt);
    } else {
        a->y_lo = y0, a->y_hi = y1;
        if (p->y_lo < p->y_hi) {
            a->y_lo = p->y_lo, a->y_hi = p->y_hi;
            a->y_step = nice_step(a->y_hi - a->y_lo, ty);
        } else {
            nice_range(&a->y_lo, &a->y_hi, ty, &a->y_step);
        }
        double lo = ceil(a->y_lo / a->y_step - 1e-9) * a->y_step;
        double hi = floor(a->y_hi / a->y_step + 1e-9) * a->y_step;
        L->n_yt = linear_ticks(lo, hi, a->y_step, L->yt);
    }

    /* Margins from the text they hold. */
    double ytw = 0.0;
    for (int i = 0; i < L->n_yt; i++) {
        wb_text_measure(font, L->yt[i].text, L->fs, &m);
        ytw = fmax(ytw, m.width);
    }
    wb_text_measure(font, "0", L->fs, &m);
    double tick_h = m.ascent + m.descent;
    double last_w = 0.0;
    if (L->n_xt > 0) {
        wb_text_measure(font, L->xt[L->n_xt - 1].text, L->fs, &m);
        last_w = m.width;
    }
    wb_text_measure(font, "Ag", L->fs_axis, &m);
    double axis_h = m.ascent + m.descent;
    wb_text_measure(font, "Ag", L->fs_title, &m);
    double title_h = m.ascent + m.descent;

    a->top = PAD + (p->title && *p->title ? title_h + GAP : 0.0) + 0.5 * tick_h;
    a->left = PAD + (p->y_title && *p->y_title ? axis_h + GAP : 0.0) + ytw + GAP + TICK_LEN;
    a->bottom = h - (PAD + (p->x_title && *p->x_title ? axis_h + GAP : 0.0) + tick_h + GAP + TICK_LEN);
    a->right = w - fmax(PAD, 0.5 * last_w + 4.0 * u);
    /* Frame lines on pixel centres, so the frame and the grid are crisp. */
    a->left = floor(a->left) + 0.5;
    a->top = floor(a->top) + 0.5;
    a->right = floor(a->right) + 0.5;
    a->bottom = floor(a->bottom) + 0.5;
    if (a->right - a->left < 40 || a->bottom - a->top < 40)
        return wb_error_set(err, WB_E_INPUT, "plot: %dx%d leaves no room for the data", w, h);
    if (p->y_title && *p->y_title) {
        wb_text_measure(font, p->y_title, L->fs_y, &m);
        if (m.width > a->bottom - a->top)
            L->fs_y *= 0.98 * (a->bottom - a->top) / m.width;
    }
    return WB_OK;
}

WbStatus wb_plot_layout(const WbPlot *p, WbFont *font, int w, int h, WbPlotArea *a, WbError *err)
{
    Layout *L = malloc(sizeof *L);
    if (!L)
        return wb_error_set(err, WB_E_IO, "plot: out of memory");
    WbStatus st = do_layout(p, font, w, h, L, err);
    if (!st)
        *a = L->a;
    free(L);
    return st;
}

static double map_y(const WbPlotArea *a, double y)
{
    double t = a->y_log ? (log10(y) - log10(a->y_lo)) / (log10(a->y_hi) - log10(a->y_lo))
                        : (y - a->y_lo) / (a->y_hi - a->y_lo);
    return a->bottom - t * (a->bottom - a->top);
}

void wb_plot_map(const WbPlotArea *a, double x, double y, double *px, double *py)
{
    *px = a->left + (x - a->x_lo) / (a->x_hi - a->x_lo) * (a->right - a->left);
    *py = map_y(a, y);
}

/* ---- drawing ---- */

static void rect(WbRaster *r, double x0, double y0, double x1, double y1, uint32_t c)
{
    float xy[8] = {(float)x0, (float)y0, (float)x1, (float)y0, (float)x1, (float)y1, (float)x0, (float)y1};
    wb_raster_polygon(r, xy, 4, c);
}

static void segment(WbRaster *r, double x0, double y0, double x1, double y1, double w, uint32_t c)
{
    float xy[4] = {(float)x0, (float)y0, (float)x1, (float)y1};
    wb_raster_polyline(r, xy, 2, (float)w, c, WB_CAP_BUTT);
}

/* A polyline as dashes: walk its length, emitting the "on" stretches. */
static WbStatus dashed(WbRaster *r, const float *xy, int n, double w, uint32_t c, double u)
{
    const double on = 8.0 * u, off = 5.0 * u;
    float *buf = malloc(sizeof(float) * 2 * (size_t)(n + 1));
    if (!buf)
        return WB_E_IO;
    double phase = 0.0; /* distance into the current on+off period */
    int m = 0;
    buf[m++] = xy[0], buf[m++] = xy[1];
    for (int i = 1; i < n; i++) {
        double ax = xy[2 * i - 2], ay = xy[2 * i - 1], bx = xy[2 * i], by = xy[2 * i + 1];
        double len = hypot(bx - ax, by - ay), done = 0.0;
        while (done < len) {
            double limit = phase < on ? on : on + off;
            double take = fmin(limit - phase, len - done);
            done += take;
            phase += take;
            double t = done / len;
            float px = (float)(ax + t * (bx - ax)), py = (float)(ay + t * (by - ay));
            if (phase <= on) {
                buf[m++] = px, buf[m++] = py;
                if (phase >= on) {
                    wb_raster_polyline(r, buf, m / 2, (float)w, c, WB_CAP_BUTT);
                    m = 0;
                }
            }
            if (phase >= on + off) {
                phase = 0.0;
                buf[m++] = px, buf[m++] = py;
            }
        }
    }
    if (m >= 4)
        wb_raster_polyline(r, buf, m / 2, (float)w, c, WB_CAP_BUTT);
    free(buf);
    return WB_OK;
}

/* The series' lines (split at skipped points), bars and markers. */
static WbStatus draw_series(WbRaster *r, const WbPlot *p, const WbPlotArea *a, int s, double u)
{
    const WbPlotSeries *S = &p->series[s];
    uint32_t c = premul(series_color(p, s));
    double lw = S->width > 0 ? S->width : 2.5 * u, mr = S->marker > 0 ? S->marker : 4.5 * u;
    if (S->style == WB_PLOT_BARS) {
        double hw = 0.5 * (S->bar_width > 0 ? S->bar_width : 0.6);
        double base = p->y_log ? a->y_lo : fmax(a->y_lo, fmin(0.0, a->y_hi));
        for (int i = 0; i < S->n; i++) {
            if (!finite_point(p, S, i))
                continue;
            double x0, x1, yb, yt;
            wb_plot_map(a, S->x[i] - hw, base, &x0, &yb);
            wb_plot_map(a, S->x[i] + hw, S->y[i], &x1, &yt);
            rect(r, x0, yb, x1, yt, c);
        }
        return WB_OK;
    }
    if (S->style != WB_PLOT_MARKERS) {
        float *xy = malloc(sizeof(float) * 2 * (size_t)(S->n > 0 ? S->n : 1));
        if (!xy)
            return WB_E_IO;
        int m = 0;
        for (int i = 0; i <= S->n; i++) {
            if (i < S->n && finite_point(p, S, i)) {
                double px, py;
                wb_plot_map(a, S->x[i], S->y[i], &px, &py);
                xy[2 * m] = (float)px, xy[2 * m + 1] = (float)py;
                m++;
                continue;
            }
            if (m >= 2) {
                if (S->dashed) {
                    if (dashed(r, xy, m, lw, c, u)) {
                        free(xy);
                        return WB_E_IO;
                    }
                } else {
                    wb_raster_polyline(r, xy, m, (float)lw, c, WB_CAP_ROUND);
                }
            }
            m = 0;
        }
        free(xy);
    }
    if (S->style != WB_PLOT_LINE) {
        uint32_t white = WB_RGBA(255, 255, 255, 255);
        for (int i = 0; i < S->n; i++) {
            if (!finite_point(p, S, i))
                continue;
            double px, py;
            wb_plot_map(a, S->x[i], S->y[i], &px, &py);
            /* A white rim keeps a marker readable where lines cross it. */
            wb_raster_disc(r, (float)px, (float)py, (float)(mr + 1.5 * u), white);
            wb_raster_disc(r, (float)px, (float)py, (float)mr, c);
        }
    }
    return WB_OK;
}

/* The legend's entries and box size. */
typedef struct Legend {
    int n;
    double w, h, row, x, y; /* box (x, y top-left), row height, px */
} Legend;

static bool in_legend(const WbPlotSeries *s)
{
    return s->label && *s->label;
}

static Legend legend_size(const WbPlot *p, WbFont *font, double fs)
{
    Legend g = {0};
    double tw = 0.0;
    WbTextMetrics m;
    for (int s = 0; s < p->n_series; s++)
        if (in_legend(&p->series[s])) {
            wb_text_measure(font, p->series[s].label, fs, &m);
            tw = fmax(tw, m.width);
            g.n++;
        }
    for (int b = 0; b < p->n_bands; b++)
        if (p->bands[b].label && *p->bands[b].label) {
            wb_text_measure(font, p->bands[b].label, fs, &m);
            tw = fmax(tw, m.width);
            g.n++;
        }
    double u = unit(fs);
    g.row = 1.55 * fs;
    g.w = 10 * u + 2.2 * fs + 8 * u + tw + 10 * u;
    g.h = g.n * g.row + 10 * u;
    return g;
}

/* The corner of the plot area whose legend box hides the fewest data
 * points (lines sampled 8 times per segment); ties go to top right, top
 * left, bottom right, bottom left. */
static void legend_place(const WbPlot *p, const WbPlotArea *a, Legend *g, double u)
{
    const double in = 10.0 * u;
    double cx[4] = {a->right - in - g->w, a->left + in, a->right - in - g->w, a->left + in};
    double cy[4] = {a->top + in, a->top + in, a->bottom - in - g->h, a->bottom - in - g->h};
    long best = -1;
    for (int k = 0; k < 4; k++) {
        long hits = 0;
        for (int s = 0; s < p->n_series; s++) {
            const WbPlotSeries *S = &p->series[s];
            double qx = 0, qy = 0;
            bool have = false;
            for (int i = 0; i < S->n; i++) {
                if (!finite_point(p, S, i)) {
                    have = false;
                    continue;
                }
                double px, py;
                wb_plot_map(a, S->x[i], S->y[i], &px, &py);
                int sub = have && S->style != WB_PLOT_MARKERS ? 8 : 1;
                for (int j = 1; j <= sub; j++) {
                    double t = (double)j / sub;
                    double x = have ? qx + t * (px - qx) : px, y = have ? qy + t * (py - qy) : py;
                    if (S->style == WB_PLOT_BARS) {
                        /* A bar hides whatever of the box lies above its top. */
                        hits += x > cx[k] - 20 * u && x < cx[k] + g->w + 20 * u && y < cy[k] + g->h;
                    } else {
                        hits += x > cx[k] - 4 * u && x < cx[k] + g->w + 4 * u &&
                                y > cy[k] - 4 * u && y < cy[k] + g->h + 4 * u;
                    }
                }
                qx = px, qy = py, have = true;
            }
        }
        if (best < 0 || hits < best) {
            best = hits;
            g->x = cx[k];
            g->y = cy[k];
        }
    }
    g->x = floor(g->x) + 0.5;
    g->y = floor(g->y) + 0.5;
}

static void legend_shapes(WbRaster *r, const WbPlot *p, const Legend *g, double fs)
{
    rect(r, g->x, g->y, g->x + g->w, g->y + g->h, WB_RGBA(255, 255, 255, 255));
    float box[10] = {(float)g->x, (float)g->y, (float)(g->x + g->w), (float)g->y,
                     (float)(g->x + g->w), (float)(g->y + g->h), (float)g->x, (float)(g->y + g->h),
                     (float)g->x, (float)g->y};
    wb_raster_polyline(r, box, 5, 1.0f, premul(WB_RGBA(170, 170, 170, 255)), WB_CAP_BUTT);
    double u = unit(fs);
    double x0 = g->x + 10 * u, x1 = x0 + 2.2 * fs;
    int row = 0;
    for (int s = 0; s < p->n_series; s++) {
        const WbPlotSeries *S = &p->series[s];
        if (!in_legend(S))
            continue;
        double y = g->y + 5 * u + (row + 0.5) * g->row;
        uint32_t c = premul(series_color(p, s));
        double lw = S->width > 0 ? S->width : 2.5 * u, mr = S->marker > 0 ? S->marker : 4.5 * u;
        if (S->style == WB_PLOT_BARS) {
            rect(r, x0 + 0.2 * fs, y - 0.45 * fs, x1 - 0.2 * fs, y + 0.45 * fs, c);
        } else {
            if (S->style != WB_PLOT_MARKERS) {
                float xy[4] = {(float)x0, (float)y, (float)x1, (float)y};
                if (S->dashed)
                    dashed(r, xy, 2, lw, c, u);
                else
                    wb_raster_polyline(r, xy, 2, (float)lw, c, WB_CAP_BUTT);
            }
            if (S->style != WB_PLOT_LINE)
                wb_raster_disc(r, (float)(0.5 * (x0 + x1)), (float)y, (float)mr, c);
        }
        row++;
    }
    for (int b = 0; b < p->n_bands; b++) {
        if (!p->bands[b].label || !*p->bands[b].label)
            continue;
        double y = g->y + 5 * u + (row + 0.5) * g->row;
        rect(r, x0, y - 0.4 * fs, x1, y + 0.4 * fs, premul(p->bands[b].color));
        row++;
    }
}

static void legend_text(WbImage *img, WbFont *font, const WbPlot *p, const Legend *g, double fs)
{
    const uint32_t ink = WB_RGBA(30, 30, 30, 255);
    /* Centre the ink band (cap height ≈ 0.73 em) on the row's middle. */
    double to_base = 0.36 * fs;
    double u = unit(fs);
    double x = g->x + 10 * u + 2.2 * fs + 8 * u;
    int row = 0;
    for (int s = 0; s < p->n_series; s++)
        if (in_legend(&p->series[s])) {
            double y = g->y + 5 * u + (row++ + 0.5) * g->row;
            wb_text_draw(img, font, p->series[s].label, fs, x, y + to_base, WB_ALIGN_LEFT, false, ink);
        }
    for (int b = 0; b < p->n_bands; b++)
        if (p->bands[b].label && *p->bands[b].label) {
            double y = g->y + 5 * u + (row++ + 0.5) * g->row;
            wb_text_draw(img, font, p->bands[b].label, fs, x, y + to_base, WB_ALIGN_LEFT, false, ink);
        }
}

/* Each point's value above it (above the bar's top, or the marker). */
static void value_labels(WbImage *img, WbFont *font, const WbPlot *p, const WbPlotArea *a, int s,
                         double fs, double u)
{
    const WbPlotSeries *S = &p->series[s];
    if (!S->value_format)
        return;
    double mr = S->style == WB_PLOT_BARS || S->style == WB_PLOT_LINE ? 0.0
                : S->marker > 0                                     ? S->marker
                                                                    : 4.5 * u;
    for (int i = 0; i < S->n; i++) {
        if (!finite_point(p, S, i))
            continue;
        double px, py;
        wb_plot_map(a, S->x[i], S->y[i], &px, &py);
        if (px < a->left || px > a->right || py < a->top || py > a->bottom)
            continue;
        char text[48];
        snprintf(text, sizeof text, S->value_format, S->y[i]);
        wb_text_draw(img, font, text, fs, px, py - mr - GAP, WB_ALIGN_CENTER, false,
                     WB_RGBA(30, 30, 30, 255));
    }
}

WbStatus wb_plot_draw(const WbPlot *p, WbFont *font, WbImage *img, WbError *err)
{
    Layout *L = malloc(sizeof *L);
    if (!L)
        return wb_error_set(err, WB_E_IO, "plot: out of memory");
    WbStatus st = do_layout(p, font, img->w, img->h, L, err);
    if (st) {
        free(L);
        return st;
    }
    const WbPlotArea *a = &L->a;
    const double u = L->u;
    WbRaster r;
    st = wb_raster_init(&r, img->w, img->h, SAMPLES, err);
    if (st) {
        free(L);
        return st;
    }
    const uint32_t white = WB_RGBA(255, 255, 255, 255);
    const uint32_t grid = premul(WB_RGBA(228, 228, 228, 255));
    const uint32_t grid_minor = premul(WB_RGBA(242, 242, 242, 255));
    const uint32_t axis = premul(WB_RGBA(60, 60, 60, 255));
    const uint32_t ink = WB_RGBA(30, 30, 30, 255);
    wb_raster_begin(&r, white);

    /* Bands, then grid lines (on pixel centres: crisp 1 px lines). */
    for (int b = 0; b < p->n_bands; b++) {
        double y0 = map_y(a, p->y_log ? fmax(p->bands[b].y0, a->y_lo) : p->bands[b].y0);
        double y1 = map_y(a, p->bands[b].y1);
        rect(&r, a->left, y0, a->right, y1, premul(p->bands[b].color));
    }
    for (int i = 0; i < L->n_xt; i++) {
        double px, py;
        wb_plot_map(a, L->xt[i].v, a->y_lo, &px, &py);
        px = floor(px) + 0.5;
        if (p->n_categories == 0)
            segment(&r, px, a->top, px, a->bottom, 1.0, grid);
    }
    for (int i = 0; i < L->n_yt; i++) {
        double py = floor(map_y(a, L->yt[i].v)) + 0.5;
        segment(&r, a->left, py, a->right, py, 1.0, L->yt[i].major ? grid : grid_minor);
    }
    for (int s = 0; s < p->n_series && !st; s++)
        if (draw_series(&r, p, a, s, u))
            st = wb_error_set(err, WB_E_IO, "plot: out of memory");

    /* Clip: cover what strayed outside the plot area, then the frame.  The
     * cover starts CLIP_SLACK px out, so a line running along the frame
     * (a curve at the range's end) keeps its full width. */
    const double cs = CLIP_SLACK;
    rect(&r, 0, 0, img->w, a->top - cs, white);
    rect(&r, 0, a->bottom + cs, img->w, img->h, white);
    rect(&r, 0, 0, a->left - cs, img->h, white);
    rect(&r, a->right + cs, 0, img->w, img->h, white);
    float frame[10] = {(float)a->left,  (float)a->top,    (float)a->right, (float)a->top,
                       (float)a->right, (float)a->bottom, (float)a->left,  (float)a->bottom,
                       (float)a->left,  (float)a->top};
    wb_raster_polyline(&r, frame, 5, 1.0f, axis, WB_CAP_BUTT);
    for (int i = 0; i < L->n_xt; i++) {
        double px, py;
        wb_plot_map(a, L->xt[i].v, a->y_lo, &px, &py);
        px = floor(px) + 0.5;
        segment(&r, px, a->bottom, px, a->bottom + TICK_LEN, 1.0, axis);
    }
    for (int i = 0; i < L->n_yt; i++) {
        double py = floor(map_y(a, L->yt[i].v)) + 0.5;
        segment(&r, a->left - (L->yt[i].major ? TICK_LEN : MINOR_LEN), py, a->left, py, 1.0, axis);
    }
    Legend g = legend_size(p, font, L->fs);
    if (g.n > 0) {
        legend_place(p, a, &g, u);
        legend_shapes(&r, p, &g, L->fs);
    }
    if (!st)
        st = wb_raster_end(&r, NULL, img, err);
    wb_raster_free(&r);
    if (st) {
        free(L);
        return st;
    }

    /* Text over the shapes. */
    WbTextMetrics m;
    wb_text_measure(font, "0", L->fs, &m);
    double digit_h = 0.73 * L->fs; /* DejaVu's figure height, for centring */
    for (int i = 0; i < L->n_xt; i++) {
        double px, py;
        wb_plot_map(a, L->xt[i].v, a->y_lo, &px, &py);
        wb_text_draw(img, font, L->xt[i].text, L->fs, px, a->bottom + TICK_LEN + GAP + m.ascent,
                     WB_ALIGN_CENTER, false, ink);
    }
    for (int i = 0; i < L->n_yt; i++) {
        if (!L->yt[i].major)
            continue;
        double py = map_y(a, L->yt[i].v);
        wb_text_draw(img, font, L->yt[i].text, L->fs, a->left - TICK_LEN - GAP, py + 0.5 * digit_h,
                     WB_ALIGN_RIGHT, false, ink);
    }
    double cx = 0.5 * (a->left + a->right), cy = 0.5 * (a->top + a->bottom);
    if (p->title && *p->title) {
        /* Centred over the plot area, but never past the image's margins. */
        wb_text_measure(font, p->title, L->fs_title, &m);
        double tx = fmin(fmax(cx, PAD + 0.5 * m.width), img->w - PAD - 0.5 * m.width);
        wb_text_draw(img, font, p->title, L->fs_title, tx, PAD + m.ascent, WB_ALIGN_CENTER, false, ink);
    }
    if (p->x_title && *p->x_title) {
        wb_text_measure(font, p->x_title, L->fs_axis, &m);
        double tx = fmin(fmax(cx, PAD + 0.5 * m.width), img->w - PAD - 0.5 * m.width);
        wb_text_draw(img, font, p->x_title, L->fs_axis, tx, img->h - PAD - m.descent, WB_ALIGN_CENTER,
                     false, ink);
    }
    if (p->y_title && *p->y_title) {
        wb_text_measure(font, p->y_title, L->fs_y, &m);
        /* Turned: the glyph tops face left, so the baseline sits ascent
         * pixels right of the margin's edge. */
        wb_text_draw(img, font, p->y_title, L->fs_y, PAD + m.ascent, cy, WB_ALIGN_CENTER, true, ink);
    }
    for (int s = 0; s < p->n_series; s++)
        value_labels(img, font, p, a, s, L->fs, u);
    if (g.n > 0)
        legend_text(img, font, p, &g, L->fs);
    free(L);
    return WB_OK;
}

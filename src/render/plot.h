/* plot.h — small line/marker/bar charts drawn with the project's rasterizer,
 * for `wobble presets KIND --plot FILE.png`.
 *
 * A chart is a plain description (WbPlot: titles, series, optional bands)
 * turned into pixels by one call:
 *
 *     WbPlot p = {.title = "...", .x_title = "time (s)", ...};
 *     p.series[p.n_series++] = (WbPlotSeries){.label = "spring", .x = t, .y = x, .n = n, ...};
 *     wb_plot_draw(&p, font, &image, &err);
 *
 * Layout (pixels): the title on top, the y-axis title turned to read bottom
 * to top on the left, tick labels beside the axes, the x-axis title below.
 * Margins are measured from the text (font metrics and the widest tick
 * label), so nothing is clipped at any image size the text fits in.  The
 * plot area is framed; grid lines sit at every labelled tick.  The legend
 * goes in whichever corner of the plot area covers the fewest data points.
 *
 * Axes: linear with "nice" ticks (1, 2 or 5 × 10^k, about one per 6 label
 * heights along x and 2.5 along y, at least 3) or, for y, logarithmic with a
 * tick per decade (labelled every other round decade when they would crowd;
 * unlabelled minor ticks at 2..9 when the range spans at most 5 decades).
 * Unless fixed by the caller, a range is the data's, widened to whole ticks
 * (linear) or whole decades (log).
 *
 * Sizes: the tick-label size is h/40 px (11..28) unless given; titles are
 * 1.3× and 1.1× that, shrunk when they would not fit.  Every other length
 * (margins, tick marks, line widths, markers, dashes) is quoted below at
 * 15 px labels and scales with the label size, so a chart looks the same at
 * any resolution.
 *
 * Lines and markers are drawn with 8× multisampling; data outside the plot
 * area is clipped 3 px beyond its frame (so a curve along the frame keeps
 * its width).  Colours are straight RGBA (WB_RGBA).  The output depends only
 * on the inputs and the font file.
 */
#ifndef WB_PLOT_H
#define WB_PLOT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/image.h"
#include "render/text.h"
#include "render/texture.h" /* WB_RGBA */

#define WB_PLOT_MAX_SERIES 12
#define WB_PLOT_MAX_BANDS 4
#define WB_PLOT_MAX_CATEGORIES 16

typedef enum WbPlotStyle {
    WB_PLOT_LINE,         /* a polyline through the points */
    WB_PLOT_MARKERS,      /* a disc at each point */
    WB_PLOT_LINE_MARKERS, /* both */
    WB_PLOT_BARS          /* a bar from y = 0 (or the axis minimum) to each point */
} WbPlotStyle;

/* One data series.  Arrays borrowed for the duration of wb_plot_draw. */
typedef struct WbPlotSeries {
    const char *label;    /* legend text; NULL or "" = not in the legend */
    const double *x, *y;  /* n points, data units; non-finite points are skipped */
    int n;
    uint32_t color;       /* straight RGBA; 0 = the palette colour of its index */
    WbPlotStyle style;
    double width;         /* line width, px; 0 = 2.5 */
    double marker;        /* marker radius, px; 0 = 4.5 */
    double bar_width;     /* WB_PLOT_BARS: bar width in x data units; 0 = 0.6 */
    bool dashed;          /* lines drawn as 8 px dashes, 5 px gaps */
    const char *value_format; /* printf format of one double (e.g. "%.2f"): each
                                 point's y written above it; NULL = none */
} WbPlotSeries;

/* A horizontal band y0 ≤ y ≤ y1 (e.g. a settle tolerance), filled lightly
 * behind the data and listed in the legend when labelled. */
typedef struct WbPlotBand {
    double y0, y1;
    const char *label;
    uint32_t color;       /* straight RGBA, its alpha is the fill's opacity */
} WbPlotBand;

typedef struct WbPlot {
    const char *title;
    const char *x_title, *y_title;   /* axis titles, with units */
    bool y_log;                      /* logarithmic y (positive data only) */
    /* Fixed ranges: used when lo < hi, else the range is automatic. */
    double x_lo, x_hi, y_lo, y_hi;
    bool y_from_zero;                /* automatic linear y range includes 0 */
    /* Category axis: when n_categories > 0 the x ticks are at 0, 1, ...,
     * n_categories − 1, labelled with these names (x range −0.5 … n − 0.5). */
    const char *categories[WB_PLOT_MAX_CATEGORIES];
    int n_categories;
    WbPlotSeries series[WB_PLOT_MAX_SERIES];
    int n_series;
    WbPlotBand bands[WB_PLOT_MAX_BANDS];
    int n_bands;
    double font_px;                  /* tick-label size; 0 = scale with the image */
} WbPlot;

/* Where the data lands: the plot area (pixels, its frame runs along these
 * edges) and the resolved ranges.  A data point (x, y) maps to
 *     px = left + (x − x_lo)/(x_hi − x_lo)·(right − left)
 *     py = bottom − (Y(y) − Y(y_lo))/(Y(y_hi) − Y(y_lo))·(bottom − top)
 * with Y = log10 on a log axis, else the identity. */
typedef struct WbPlotArea {
    double left, top, right, bottom;
    double x_lo, x_hi, y_lo, y_hi;
    bool y_log;
    double x_step, y_step;           /* linear tick spacing (y_step unused when log) */
} WbPlotArea;

/* The palette: 8 colours told apart also by most colour-blind readers. */
uint32_t wb_plot_color(int i);

/* Compute the layout of p on a w×h image.  WB_E_INPUT when there is no
 * finite data to range over, a log axis meets y ≤ 0 only, or the image is
 * too small for the text (under 160×120). */
WbStatus wb_plot_layout(const WbPlot *p, WbFont *font, int w, int h, WbPlotArea *a, WbError *err);

/* Data → pixel, by the formula above. */
void wb_plot_map(const WbPlotArea *a, double x, double y, double *px, double *py);

/* Draw p over the whole of img (white background, opaque).  Errors as
 * wb_plot_layout, and WB_E_IO when memory runs out. */
WbStatus wb_plot_draw(const WbPlot *p, WbFont *font, WbImage *img, WbError *err);

#endif

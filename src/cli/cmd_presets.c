/* cmd_presets.c — `wobble presets`: the numbers behind each named preset,
 * computed by the engine (never typed in). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/table.h"
#include "core/image.h"
#include "io/png.h"
#include "render/plot.h"
#include "render/text.h"
#include "scene/scene.h"
#include "scene/scene_load.h"
#include "sim/drape.h"
#include "sim/fabric.h"
#include "sim/jiggle.h"
#include "sim/oscillator.h"
#include "sim/presets.h"
#include "sim/rope.h"

/* ---- --plot: the curves behind each table ---- */

/* A missing font fails before any table is printed. */
static WbStatus check_font(WbError *err)
{
    WbFont *font;
    WbStatus st = wb_font_open(NULL, &font, err);
    if (!st)
        wb_font_close(font);
    return st;
}

/* Draw the chart at the requested size and write it to o->plot. */
static WbStatus write_chart(const WbPlot *p, const WbPresetsOptions *o, WbError *err)
{
    WbFont *font;
    WbStatus st = wb_font_open(NULL, &font, err);
    if (st)
        return st;
    WbImage img;
    st = wb_image_alloc(&img, o->plot_w, o->plot_h, err);
    if (!st) {
        st = wb_plot_draw(p, font, &img, err);
        if (!st)
            st = wb_png_write(o->plot, &img, false, err);
        wb_image_free(&img);
    }
    wb_font_close(font);
    return st;
}

/* photo: each preset's released vertex, x(t), with the settle band and the
 * moment each one settles. */
static WbStatus plot_photo(const WbPresetsOptions *o, WbError *err)
{
    size_t n;
    const WbPhotoPreset *table = wb_photo_presets(&n);
    if (n > 4)
        n = 4;
    double k[4], z[4], settle_x[4];
    WbPresetRow row[4];
    double duration = 0.0;
    for (size_t i = 0; i < n; i++) {
        double f;
        if (!wb_photo_preset_values(&table[i], &f, &z[i]))
            return wb_error_set(err, WB_E_INPUT, "preset %s: its target row cannot be fitted",
                                table[i].name);
        k[i] = pow(2.0 * M_PI * f, 2.0);
        wb_preset_measure(k[i], z[i], o->rate, (WbSpringIntegrator)o->integrator, &row[i]);
        duration = fmax(duration, row[i].settle);
    }
    /* A quarter beyond the slowest settle shows every curve coming to rest. */
    duration = ceil(1.25 * duration * 4.0) / 4.0;
    int max = (int)(duration * o->rate) + 2;
    double *buf = malloc(sizeof(double) * 2 * (size_t)max * n);
    if (!buf)
        return wb_error_set(err, WB_E_IO, "--plot: out of memory");
    char labels[4][96];
    double settle_t[4];
    char title[128];
    snprintf(title, sizeof title, "Photo presets: one vertex released from a pull of 1 (%s, %g steps/s)",
             o->integrator ? "exact" : "Euler", o->rate);
    WbPlot p = {.title = title,
                .x_title = "time since release (s)",
                .y_title = "displacement (fraction of the pull)"};
    for (size_t i = 0; i < n; i++) {
        double *t = buf + 2 * (size_t)max * i, *x = t + max;
        int m = wb_preset_trajectory(k[i], z[i], o->rate, (WbSpringIntegrator)o->integrator, duration, t,
                                     x, max);
        /* x at the settle time, between the samples around it. */
        double ts = row[i].settle;
        int j = (int)(ts * o->rate);
        j = j < 0 ? 0 : j > m - 2 ? m - 2 : j;
        settle_t[i] = ts;
        settle_x[i] = x[j] + (ts - t[j]) / (t[j + 1] - t[j]) * (x[j + 1] - x[j]);
        snprintf(labels[i], sizeof labels[i], "%s: period %.2f s, %d swings, settles at %.2f s",
                 table[i].name, row[i].period, row[i].oscillations, ts);
        p.series[p.n_series++] = (WbPlotSeries){.label = labels[i], .x = t, .y = x, .n = m,
                                                .color = wb_plot_color((int)i),
                                                .style = WB_PLOT_LINE};
    }
    for (size_t i = 0; i < n; i++)
        p.series[p.n_series++] = (WbPlotSeries){.x = &settle_t[i], .y = &settle_x[i], .n = 1,
                                                .color = wb_plot_color((int)i),
                                                .style = WB_PLOT_MARKERS, .marker = 5.0};
    p.bands[p.n_bands++] = (WbPlotBand){.y0 = -WB_PRESET_SETTLE_FRACTION,
                                        .y1 = WB_PRESET_SETTLE_FRACTION,
                                        .label = "\u00b12 % settle band (dots: settled)",
                                        .color = WB_RGBA(120, 120, 120, 70)};
    WbStatus st = write_chart(&p, o, err);
    free(buf);
    return st;
}

/* jiggle: each bone's step response, x(t) from an offset of 1 at rest,
 * by the exact oscillator with the bone's ω and ζ. */
static WbStatus plot_jiggle(const WbPresetsOptions *o, const WbJiggle *j, const WbJiggleDef *d,
                            WbError *err)
{
    enum { BONES = 3 };
    double w[BONES], z[BONES], duration = 0.0;
    for (int b = 0; b < BONES; b++) {
        wb_jiggle_bone_response(j, d, b, &w[b], &z[b]);
        /* Envelope e^(−ζωt) down to 2 %: t = ln 50 / (ζω). */
        duration = fmax(duration, log(50.0) / fmax(z[b] * w[b], 1e-3));
    }
    /* A fifth more, to whole seconds (half seconds for quick bones), so the
     * curves run to the end of the time axis. */
    duration *= 1.2;
    duration = fmin(duration > 4.0 ? ceil(duration) : ceil(2.0 * duration) / 2.0, 30.0);
    const double rate = 240.0;
    int max = (int)lround(duration * rate) + 1;
    double *buf = malloc(sizeof(double) * 2 * (size_t)max * BONES);
    if (!buf)
        return wb_error_set(err, WB_E_IO, "--plot: out of memory");
    char labels[BONES][96];
    char title[96];
    snprintf(title, sizeof title, "Jiggle bones (seed %u): released from an offset of 1", o->seed);
    WbPlot p = {.title = title, .x_title = "time since release (s)",
                .y_title = "offset (fraction of the release)"};
    for (int b = 0; b < BONES; b++) {
        double *t = buf + 2 * (size_t)max * b, *x = t + max;
        WbOscCoef c = wb_osc_coef(w[b], z[b], 1.0 / rate);
        double xv = 1.0, vv = 0.0;
        for (int i = 0; i < max; i++) {
            t[i] = (double)i / rate;
            x[i] = xv;
            wb_osc_apply(&c, &xv, &vv, 0.0);
        }
        snprintf(labels[b], sizeof labels[b], "bone %d: %.2f Hz, \u03b6 %.3f", b, w[b] / (2 * M_PI),
                 z[b]);
        p.series[p.n_series++] = (WbPlotSeries){.label = labels[b], .x = t, .y = x, .n = max,
                                                .style = WB_PLOT_LINE};
    }
    WbStatus st = write_chart(&p, o, err);
    free(buf);
    return st;
}

/* rope: mean elongation against relaxation passes, one line per solver and
 * rope length; logarithmic, since the solvers differ by orders. */
static WbStatus plot_rope(const WbPresetsOptions *o, const WbRopeConvRow *rows, int n, WbError *err)
{
    enum { MAXS = 8 };
    double xs[MAXS][32], ys[MAXS][32];
    char labels[MAXS][64];
    struct { WbRopeSolver solver; int nodes; } key[MAXS];
    int ns = 0, cnt[MAXS] = {0};
    for (int i = 0; i < n; i++) {
        int s = 0;
        while (s < ns && !(key[s].solver == rows[i].solver && key[s].nodes == rows[i].nodes))
            s++;
        if (s == ns) {
            if (ns == MAXS)
                continue;
            key[ns].solver = rows[i].solver;
            key[ns].nodes = rows[i].nodes;
            ns++;
        }
        if (cnt[s] < 32) {
            xs[s][cnt[s]] = rows[i].passes;
            ys[s][cnt[s]++] = 100.0 * rows[i].mean_elongation;
        }
    }
    WbPlot p = {.title = "Hanging rope after 5 s: stretch each solver leaves",
                .x_title = "relaxation passes per step", .y_title = "mean link elongation (%)",
                .y_log = true, .x_lo = 0.0};
    double x_hi = 0.0;
    for (int s = 0; s < ns; s++) {
        bool chain = key[s].solver == WB_ROPE_CHAIN;
        snprintf(labels[s], sizeof labels[s], "%s, %d nodes", chain ? "chain solver" : "Jakobsen",
                 key[s].nodes);
        p.series[p.n_series++] = (WbPlotSeries){.label = labels[s], .x = xs[s], .y = ys[s],
                                                .n = cnt[s], .style = WB_PLOT_LINE_MARKERS,
                                                .dashed = chain};
        for (int i = 0; i < cnt[s]; i++)
            x_hi = fmax(x_hi, xs[s][i]);
    }
    p.x_hi = x_hi + 1.0;
    /* What the rope articles claim for 30 nodes at 5 passes, for scale. */
    double cx[2] = {0.0, p.x_hi}, cy[2] = {0.4, 0.4};
    p.series[p.n_series++] = (WbPlotSeries){.label = "0.4 %: the rope articles' claim", .x = cx,
                                            .y = cy, .n = 2, .color = WB_RGBA(120, 120, 120, 255),
                                            .width = 1.5, .dashed = true};
    return write_chart(&p, o, err);
}

/* photo: each preset's fitted spring and the row it measures to. */
static WbStatus presets_photo(const WbPresetsOptions *o, WbTableFormat fmt, WbError *err)
{
    WbTable t = {.n_cols = 8,
                 .head = {"preset", "frequency_hz", "k", "zeta", "period_s", "oscillations",
                          "settle_s", "target"},
                 .numeric = {false, true, true, true, true, true, true, false}};
    size_t n;
    const WbPhotoPreset *table = wb_photo_presets(&n);
    for (size_t i = 0; i < n; i++) {
        double f, z;
        if (!wb_photo_preset_values(&table[i], &f, &z))
            return wb_error_set(err, WB_E_INPUT, "preset %s: its target row cannot be fitted",
                                table[i].name);
        double k = pow(2.0 * M_PI * f, 2.0);
        WbPresetRow r;
        wb_preset_measure(k, z, o->rate, (WbSpringIntegrator)o->integrator, &r);
        wb_table_row(&t, "%s|%.6g|%.6g|%.6g|%.3f|%d|%.3f|%.2f s / ~%d / %.2f s", table[i].name, f,
                     k, z, r.period, r.oscillations, r.settle, table[i].target.period,
                     table[i].target.oscillations, table[i].target.settle);
    }
    wb_table_write(&t, fmt, stdout);
    return o->plot ? plot_photo(o, err) : WB_OK;
}

/* --fit period=P settle=S: the spring with that feel, and the slider
 * positions that reach it from the scene's default frequency. */
static WbStatus fit_photo(const WbPresetsOptions *o, WbTableFormat fmt, WbError *err)
{
    double k, z;
    if (!wb_preset_fit(o->fit_period, o->fit_settle, o->rate, (WbSpringIntegrator)o->integrator, &k, &z))
        return wb_error_set(err, WB_E_INPUT,
                            "--fit: no spring has period %.3f s and settles in %.3f s under the "
                            "rules (the damping ratio would leave [0.01, 0.85])",
                            o->fit_period, o->fit_settle);
    WbScene def;
    wb_scene_default(&def);
    double f0 = def.photo.frequency, k0 = pow(2.0 * M_PI * f0, 2.0);
    wb_scene_free(&def);
    double s = log2(k / k0);
    WbPresetRow r;
    wb_preset_measure(k, z, o->rate, (WbSpringIntegrator)o->integrator, &r);
    WbTable t = {.n_cols = 9,
                 .head = {"frequency_hz", "k", "zeta", "elasticity", "bounce", "period_s",
                          "oscillations", "settle_s", "sliders"},
                 .numeric = {true, true, true, true, true, true, true, true, false}};
    const char *note = (s < -1 || s > 1) ? "elasticity outside [-1, 1]: set photo.frequency"
                       : (z < 0.16)      ? "bounce below 0.16: out of the slider's range"
                                         : "reachable";
    wb_table_row(&t, "%.6g|%.6g|%.6g|%.4f|%.4f|%.3f|%d|%.3f|%s", sqrt(k) / (2 * M_PI), k, z, s, z,
                 r.period, r.oscillations, r.settle, note);
    wb_table_write(&t, fmt, stdout);
    return WB_OK;
}

/* jiggle: each bone's seeded character and the spring it yields. */
static WbStatus presets_jiggle(const WbPresetsOptions *o, WbTableFormat fmt, WbError *err)
{
    WbJiggle j;
    WbStatus st = wb_jiggle_init(&j, 3, o->seed, err);
    if (st)
        return st;
    WbJiggleDef d = wb_jiggle_def_default();
    WbTable t = {.n_cols = 9,
                 .head = {"bone", "mul_freq", "mul_damp", "mul_gravity", "size", "frequency_hz",
                          "zeta", "gravity", "seed"},
                 .numeric = {true, true, true, true, true, true, true, true, true}};
    for (int b = 0; b < 3; b++) {
        double w, z;
        wb_jiggle_bone_response(&j, &d, b, &w, &z);
        wb_table_row(&t, "%d|%.6f|%.6f|%.6f|%.3f|%.6f|%.6f|%.6f|%u", b, j.mul_freq[b], j.mul_damp[b],
                     j.mul_grav[b], j.size[b], w / (2 * M_PI), z, d.gravity * j.mul_grav[b], o->seed);
    }
    wb_table_write(&t, fmt, stdout);
    st = o->plot ? plot_jiggle(o, &j, &d, err) : WB_OK;
    wb_jiggle_free(&j);
    return st;
}

/* rope: the convergence table of both solvers on a hanging chain. */
static WbStatus presets_rope(const WbPresetsOptions *o, WbTableFormat fmt, WbError *err)
{
    WbRopeConvRow rows[32];
    int n = wb_rope_convergence_table(rows, 32, !o->no_timing, err);
    if (n < 0)
        return WB_E_INPUT;
    WbTable t = {.n_cols = 6,
                 .head = {"solver", "nodes", "passes", "mean_elongation_pct", "max_elongation_pct",
                          "us_per_step"},
                 .numeric = {false, true, true, true, true, true}};
    for (int i = 0; i < n; i++) {
        const WbRopeConvRow *r = &rows[i];
        wb_table_row(&t, "%s|%d|%d|%.3f|%.3f|%.2f", r->solver == WB_ROPE_CHAIN ? "chain" : "jakobsen",
                     r->nodes, r->passes, 100.0 * r->mean_elongation, 100.0 * r->max_elongation,
                     o->no_timing ? 0.0 : r->us_per_step);
    }
    wb_table_write(&t, fmt, stdout);
    return o->plot ? plot_rope(o, rows, n, err) : WB_OK;
}

/* fabric: a bar per preset, its drape coefficient (0 limp … 1 stiff). */
static WbStatus plot_fabric(const WbPresetsOptions *o, const char *const *names, const double *dc,
                            int n, WbError *err)
{
    WbPlot p = {.title = "Fabric presets: the virtual drape test (Cusick)",
                .x_title = "preset",
                .y_title = "drape coefficient (0 hangs straight, 1 stays flat)",
                .y_lo = 0.0, .y_hi = 1.0};
    double x[WB_PLOT_MAX_CATEGORIES];
    if (n > WB_PLOT_MAX_CATEGORIES)
        n = WB_PLOT_MAX_CATEGORIES;
    for (int i = 0; i < n; i++) {
        x[i] = i;
        p.categories[i] = names[i];
    }
    p.n_categories = n;
    p.series[p.n_series++] = (WbPlotSeries){.x = x, .y = dc, .n = n, .style = WB_PLOT_BARS,
                                            .value_format = "%.3f"};
    return write_chart(&p, o, err);
}

/* fabric: each fabric preset's six parameters and what the virtual drape
 * test (sim/drape.h: the Cusick test run by the cloth solver) measures. */
static WbStatus presets_fabric(const WbPresetsOptions *o, WbTableFormat fmt, WbError *err)
{
    WbTable t = {.n_cols = 10,
                 .head = {"preset", "stiffness", "weight_kg_m2", "damping", "bend_stiffness",
                          "friction", "wind_response", "drape_coefficient", "max_stretch",
                          "settle_s"},
                 .numeric = {false, true, true, true, true, true, true, true, true, true}};
    const WbDrapeDef d = wb_drape_default();
    double dc[WB_FABRIC_COUNT];
    const char *names[WB_FABRIC_COUNT];
    for (int id = 0; id < WB_FABRIC_COUNT; id++) {
        WbFabric f = wb_fabric_preset((WbFabricId)id);
        WbDrapeResult r;
        WbStatus st = wb_drape_run(&d, &f, &r, err);
        if (st)
            return st;
        dc[id] = r.drape_coefficient;
        names[id] = f.name;
        wb_table_row(&t, "%s|%.2f|%.2f|%.3f|%.3f|%.2f|%.2f|%.4f|%.4f|%.3f", f.name, f.stiffness,
                     f.weight, f.damping, f.bend_stiffness, f.friction, f.wind_response,
                     r.drape_coefficient, r.max_stretch, r.settle_s);
    }
    wb_table_write(&t, fmt, stdout);
    return o->plot ? plot_fabric(o, names, dc, WB_FABRIC_COUNT, err) : WB_OK;
}

WbStatus wb_cmd_presets(const WbPresetsOptions *o, WbError *err)
{
    WbTableFormat fmt;
    WbStatus st = wb_table_format_parse(o->format, &fmt, err);
    if (!st && o->plot)
        st = check_font(err);
    if (st)
        return st;
    if (!strcmp(o->kind, "photo"))
        return o->fit ? fit_photo(o, fmt, err) : presets_photo(o, fmt, err);
    if (o->fit)
        return wb_error_set(err, WB_E_INPUT, "--fit applies to photo presets only");
    if (!strcmp(o->kind, "jiggle"))
        return presets_jiggle(o, fmt, err);
    if (!strcmp(o->kind, "rope"))
        return presets_rope(o, fmt, err);
    if (!strcmp(o->kind, "fabric"))
        return presets_fabric(o, fmt, err);
    return wb_error_set(err, WB_E_INPUT, "presets: unknown kind '%s' (photo, jiggle, rope, fabric)",
                        o->kind);
}

/* cmd_presets.c — `wobble presets`: the numbers behind each named preset,
 * computed by the engine (never typed in). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "scene/scene.h"
#include "scene/scene_load.h"
#include "sim/jiggle.h"
#include "sim/presets.h"
#include "sim/rope.h"
#include "tools/table.h"

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
        if (!wb_photo_preset_values(table[i].id, &f, &z))
            return wb_error_set(err, WB_E_INPUT, "preset %s: its target row cannot be fitted",
                                table[i].name);
        double k = pow(2.0 * M_PI * f, 2.0);
        WbPresetRow r;
        wb_preset_measure(k, z, o->rate, (WbIntegrator)o->integrator, &r);
        wb_table_row(&t, "%s|%.6g|%.6g|%.6g|%.3f|%d|%.3f|%.2f s / ~%d / %.2f s", table[i].name, f,
                     k, z, r.period, r.oscillations, r.settle, table[i].target.period,
                     table[i].target.oscillations, table[i].target.settle);
    }
    wb_table_write(&t, fmt, stdout);
    return WB_OK;
}

/* --fit period=P settle=S: the spring with that feel, and the slider
 * positions that reach it from the scene's default frequency. */
static WbStatus fit_photo(const WbPresetsOptions *o, WbTableFormat fmt, WbError *err)
{
    double k, z;
    if (!wb_preset_fit(o->fit_period, o->fit_settle, o->rate, (WbIntegrator)o->integrator, &k, &z))
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
    wb_preset_measure(k, z, o->rate, (WbIntegrator)o->integrator, &r);
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
    wb_jiggle_free(&j);
    return WB_OK;
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
    return WB_OK;
}

WbStatus wb_cmd_presets(const WbPresetsOptions *o, WbError *err)
{
    WbTableFormat fmt;
    WbStatus st = wb_table_format_parse(o->format, &fmt, err);
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
    return wb_error_set(err, WB_E_INPUT, "presets: unknown kind '%s' (photo, jiggle, rope)", o->kind);
}

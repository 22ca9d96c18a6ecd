/* The loader's preset numbers are the engine's fit, and they reproduce the
 * reference rows under the rules stated in the man page. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "scene/scene.h"
#include "scene/scene_load.h"
#include "sim/presets.h"
#include "sim/spring.h"

/* The scene's id of row i: the rows are in the scene's order. */
static WbPreset scene_preset(const WbPhotoPreset *table, size_t i)
{
    static const char *const names[] = {"spring", "rubber", "jelly"};
    cr_assert(i < 3 && !strcmp(table[i].name, names[i]), "row %zu is %s", i, table[i].name);
    return (WbPreset)(WB_PRESET_SPRING + (int)i);
}

Test(presets, loader_values_equal_the_fit)
{
    size_t n;
    const WbPhotoPreset *table = wb_photo_presets(&n);
    cr_assert_eq(n, 3);
    for (size_t i = 0; i < n; i++) {
        double f, z;
        cr_assert(wb_photo_preset_values(&table[i], &f, &z), "%s does not fit", table[i].name);
        WbScene s;
        wb_scene_default(&s);
        wb_photo_preset_apply(&s.photo, scene_preset(table, i));
        /* Six significant digits: what the table in scene.c carries. */
        cr_expect(fabs(s.photo.frequency - f) <= 1e-5 * f, "%s frequency %.6f, fit %.6f",
                  table[i].name, s.photo.frequency, f);
        cr_expect(fabs(s.photo.bounce - z) <= 1e-5 * z, "%s bounce %.6f, fit %.6f", table[i].name,
                  s.photo.bounce, z);
        wb_scene_free(&s);
    }
}

Test(presets, loader_values_reproduce_the_rows)
{
    size_t n;
    const WbPhotoPreset *table = wb_photo_presets(&n);
    for (size_t i = 0; i < n; i++) {
        WbScene s;
        wb_scene_default(&s);
        wb_photo_preset_apply(&s.photo, scene_preset(table, i));
        double k = pow(2.0 * M_PI * s.photo.frequency, 2.0);
        WbPresetRow r;
        wb_preset_measure(k, s.photo.bounce, WB_PRESET_RATE, WB_PRESET_INTEGRATOR, &r);
        cr_expect(fabs(r.period - table[i].target.period) <= 0.01, "%s period %.4f", table[i].name, r.period);
        cr_expect_eq(r.oscillations, table[i].target.oscillations, "%s oscillations %d", table[i].name,
                     r.oscillations);
        cr_expect(fabs(r.settle - table[i].target.settle) <= 0.02, "%s settle %.4f", table[i].name, r.settle);
        wb_scene_free(&s);
    }
}

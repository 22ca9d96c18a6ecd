/* cmd_weights.c — `wobble weights export SHAPE`: a jiggle shape's preset
 * paint as an RGBA PNG (R, G, B = bones 0, 1, 2; A = 255), the portable
 * asset of the jiggle standard.  The default name carries the seed
 * (jiggle-weights-seed-<n>.png), so loading the file back as jiggle.weights
 * reseeds the scene and reproduces the look. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "io/png.h"
#include "sim/jiggle_outline.h"
#include "sim/weightmap.h"

WbStatus wb_cmd_weights(const WbWeightsOptions *o, WbError *err)
{
    /* "capsule" is the 3D one; the 2D pill is "capsule-2d" */
    WbWeightShape shape3 = WB_WEIGHT_ORB;
    WbOutlineShape shape2 = WB_OUTLINE_DISC;
    bool is3 = wb_weight_shape_from_name(o->shape, &shape3), is2 = false;
    if (!is3 && !strcmp(o->shape, "capsule-2d")) {
        shape2 = WB_OUTLINE_CAPSULE;
        is2 = true;
    } else if (!is3 && strcmp(o->shape, "capsule")) {
        is2 = wb_outline_shape_from_name(o->shape, &shape2);
    }
    if (!is3 && !is2)
        return wb_error_set(err, WB_E_INPUT, "weights export: unknown shape '%s' (orb, capsule, "
                            "torus, dancer, walker, disc, ring, capsule-2d)", o->shape);
    WbWeightMap m;
    WbStatus st = wb_weightmap_init(&m, o->width, o->height, err);
    if (st)
        return st;
    if (is3)
        wb_weightmap_preset(&m, shape3);
    else
        wb_outline_preset(&m, shape2);
    WbImage img;
    st = wb_weightmap_to_image(&m, &img, err);
    wb_weightmap_free(&m);
    if (st)
        return st;
    char name[64];
    const char *path = o->output;
    if (!path) {
        snprintf(name, sizeof name, "jiggle-weights-seed-%lu.png", (unsigned long)o->seed);
        path = name;
    }
    st = wb_png_write(path, &img, true, err);
    wb_image_free(&img);
    return st;
}

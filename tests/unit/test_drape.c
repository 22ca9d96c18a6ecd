/* test_drape.c — the virtual drape test and the cloth's inert particles. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "sim/drape.h"

static WbDrapeResult drape(WbFabricId id)
{
    WbDrapeDef d = wb_drape_default();
    WbFabric f = wb_fabric_preset(id);
    WbDrapeResult r;
    WbError err = {0};
    cr_assert_eq(wb_drape_run(&d, &f, &r, &err), WB_OK, "%s: %s", f.name, err.msg);
    return r;
}

/* Without gravity nothing sags: the shadow is the flat specimen, DC = 1. */
Test(drape, stiff_specimen_has_coefficient_one)
{
    WbDrapeDef d = wb_drape_default();
    d.gravity = 0.0f;
    WbFabric f = wb_fabric_preset(WB_FABRIC_CHIFFON);
    WbDrapeResult r;
    WbError err = {0};
    cr_assert_eq(wb_drape_run(&d, &f, &r, &err), WB_OK, "%s", err.msg);
    cr_assert(r.settled);
    cr_assert_eq(r.frames, d.settle_frames, "at rest from the first frame");
    cr_assert_float_eq(r.drape_coefficient, 1.0, 1e-9);
    cr_assert_float_eq(r.max_stretch, 1.0f, 1e-4f);
    /* the flat mesh is the circle of radius R less its stair-cut edge (at
     * 27 particles a side, ~9 % short of π R²: why DC divides by the mesh's
     * own flat shadow) */
    double circle = M_PI * (double)d.radius * d.radius;
    cr_assert(r.flat_area < circle && r.flat_area > 0.88 * circle, "flat %g", r.flat_area);
    cr_assert_float_eq(r.disc_area, M_PI * 0.09 * 0.09, 1e-6);
}

/* The raster measure against the closed form: the flat cut grid's area is
 * (number of triangles with no inert corner) × h²/2. */
Test(drape, shadow_of_flat_specimen_matches_triangle_count)
{
    WbClothDef cd = wb_cloth_default();
    cd.nx = cd.ny = 21;
    cd.size[0] = cd.size[1] = 0.2f;
    cd.origin[0] = cd.origin[2] = -0.1f;
    cd.origin[1] = 0.0f;
    cd.mannequin = false;
    WbClothState s;
    WbError err = {0};
    cr_assert_eq(wb_cloth_init(&s, &cd, &err), WB_OK, "%s", err.msg);
    for (int j = 0; j < 21; j++)
        for (int i = 0; i < 21; i++)
            if ((i - 10) * (i - 10) + (j - 10) * (j - 10) > 100)
                cr_assert(wb_cloth_set_inert(&s, i, j));
    int tris = 0;
    for (int j = 0; j < 20; j++) {
        for (int i = 0; i < 20; i++) {
            int a = j * 21 + i, b = a + 1, c = a + 21, d = c + 1;
            tris += s.w[a] >= 0 && s.w[b] >= 0 && s.w[d] >= 0;
            tris += s.w[a] >= 0 && s.w[d] >= 0 && s.w[c] >= 0;
        }
    }
    double exact = tris * 0.01 * 0.01 / 2.0, area;
    cr_assert_eq(wb_drape_shadow_area(&s, 0.0f, 0.0f, 0.125f, 0.00025f, &area, &err), WB_OK);
    cr_assert(fabs(area - exact) < 2e-3 * exact, "raster %g, exact %g", area, exact);
    /* folding the cloth in two halves the shadow (one layer over the other) */
    for (int p = 0; p < s.n; p++) {
        if (s.x[p] < 0.0f) {
            s.y[p] = -s.x[p];
            s.x[p] = 0.0f;
        }
    }
    double half;
    cr_assert_eq(wb_drape_shadow_area(&s, 0.0f, 0.0f, 0.125f, 0.00025f, &half, &err), WB_OK);
    cr_assert(fabs(half - exact / 2.0) < 4e-3 * exact, "folded %g, exact half %g", half,
              exact / 2.0);
    wb_cloth_free(&s);
}

/* Every preset drapes partly and settles; the textile order holds. */
Test(drape, presets_in_textile_order, .timeout = 120)
{
    WbDrapeResult r[WB_FABRIC_COUNT];
    for (int id = 0; id < WB_FABRIC_COUNT; id++) {
        r[id] = drape((WbFabricId)id);
        cr_assert(r[id].drape_coefficient > 0.0 && r[id].drape_coefficient < 1.0, "%s DC %g",
                  wb_fabric_preset((WbFabricId)id).name, r[id].drape_coefficient);
        cr_assert(r[id].settled, "%s did not settle", wb_fabric_preset((WbFabricId)id).name);
        cr_assert(r[id].max_stretch >= 1.0f && r[id].max_stretch <= 1.12f + 1e-3f);
    }
    const WbFabricId order[] = {WB_FABRIC_CHIFFON, WB_FABRIC_SILK, WB_FABRIC_COTTON,
                                WB_FABRIC_WOOL, WB_FABRIC_DENIM};
    for (int k = 0; k + 1 < 5; k++)
        cr_assert_lt(r[order[k]].drape_coefficient, r[order[k + 1]].drape_coefficient,
                     "%s !< %s", wb_fabric_preset(order[k]).name,
                     wb_fabric_preset(order[k + 1]).name);
    /* leather, the stiffest and heaviest, at the stiff end */
    cr_assert_gt(r[WB_FABRIC_LEATHER].drape_coefficient, r[WB_FABRIC_DENIM].drape_coefficient);
}

Test(drape, deterministic)
{
    WbDrapeResult a = drape(WB_FABRIC_SILK), b = drape(WB_FABRIC_SILK);
    cr_assert_eq(memcmp(&a.drape_coefficient, &b.drape_coefficient, sizeof(double)), 0);
    cr_assert_eq(a.frames, b.frames);
    cr_assert_eq(memcmp(&a.max_stretch, &b.max_stretch, sizeof(float)), 0);
}

Test(drape, invalid_def_is_an_input_error)
{
    WbFabric f = wb_fabric_preset(WB_FABRIC_SILK);
    WbDrapeResult r;
    WbError err = {0};
    WbDrapeDef d = wb_drape_default();
    d.disc_radius = d.radius;
    cr_assert_eq(wb_drape_run(&d, &f, &r, &err), WB_E_INPUT);
    cr_assert(strstr(err.msg, "disc") != NULL, "%s", err.msg);
    d = wb_drape_default();
    d.grid = 40;
    cr_assert_eq(wb_drape_run(&d, &f, &r, &err), WB_E_INPUT);
    cr_assert(strstr(err.msg, "odd") != NULL, "%s", err.msg);
    d = wb_drape_default();
    d.cell = 0.0f;
    cr_assert_eq(wb_drape_run(&d, &f, &r, &err), WB_E_INPUT);
}

/* Inert particles are cut out: moving them does not pull the cloth, and the
 * step never moves them. */
Test(drape, inert_particles_exert_nothing)
{
    WbClothDef cd = wb_cloth_default();
    cd.nx = cd.ny = 8;
    cd.size[0] = cd.size[1] = 0.7f;
    cd.origin[0] = cd.origin[2] = 0.0f;
    cd.origin[1] = 1.0f;
    cd.mannequin = false;
    cd.floor = false;
    cd.gravity = 0.0f;
    for (int solver = 0; solver < 2; solver++) {
        cd.solver = solver ? WB_CLOTH_XPBD : WB_CLOTH_PBD;
        cd.bending = solver ? WB_CLOTH_BEND_DIHEDRAL : WB_CLOTH_BEND_SKIP;
        WbClothState s;
        WbError err = {0};
        cr_assert_eq(wb_cloth_init(&s, &cd, &err), WB_OK, "%s", err.msg);
        for (int j = 0; j < 8; j++)
            cr_assert(wb_cloth_set_inert(&s, 7, j));
        for (int j = 0; j < 8; j++) { /* drag the cut column far away */
            s.x[j * 8 + 7] += 0.5f;
            s.y[j * 8 + 7] -= 0.3f;
            s.px[j * 8 + 7] = s.x[j * 8 + 7];
            s.py[j * 8 + 7] = s.y[j * 8 + 7];
        }
        float x0[64], y0[64];
        memcpy(x0, s.x, sizeof x0);
        memcpy(y0, s.y, sizeof y0);
        for (int f = 0; f < 30; f++)
            wb_cloth_step(&s, &cd, f / 60.0, 1.0f / 60.0f);
        for (int p = 0; p < 64; p++) {
            /* float rounding of the rest lengths moves a free cloth by ~1e-7 m;
             * a link to the dragged column would move it by centimetres */
            cr_assert(fabsf(s.x[p] - x0[p]) < 1e-5f, "solver %d particle %d: dx %g", solver, p,
                      (double)(s.x[p] - x0[p]));
            cr_assert(fabsf(s.y[p] - y0[p]) < 1e-5f, "solver %d particle %d: dy %g", solver, p,
                      (double)(s.y[p] - y0[p]));
        }
        cr_assert_float_eq(wb_cloth_max_stretch(&s), 1.0f, 1e-5f);
        /* brought back (pinned), the column pulls its neighbours at once */
        wb_cloth_set_pinned(&s, 7, 3, true);
        wb_cloth_step(&s, &cd, 0.5, 1.0f / 60.0f);
        cr_assert(s.x[3 * 8 + 6] - x0[3 * 8 + 6] > 1e-3f, "dx %g",
                  (double)(s.x[3 * 8 + 6] - x0[3 * 8 + 6]));
        wb_cloth_free(&s);
    }
}

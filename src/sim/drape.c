/* drape.c — the virtual drape test.  See drape.h for the measure.
 *
 * Stages of wb_drape_run:
 *   1. specimen   a grid × grid cloth over the square [−R, R]² at y = 0 with
 *                 spacing h = 2R/(grid − 1) = R/c, c = (grid − 1)/2.  With
 *                 (i, j) counted from the centre particle, a particle is
 *                 inert when i² + j² > c² (outside the specimen) and pinned
 *                 when (i² + j²)·h² <= r² (under the clamp disc): integer
 *                 tests, so the cut does not depend on rounding.
 *   2. flat       A_flat = the shadow of the specimen as laid.
 *   3. drape      60 Hz frames of the cloth solver until settled (every free
 *                 particle slower than settle_speed, its speed taken over
 *                 the last substep, for settle_frames frames in a row) or
 *                 max_time.
 *   4. measure    A_shadow, the stretch, DC.
 */
#include "sim/drape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DRAPE_FPS 60.0
#define DRAPE_MAX_RASTER 4096 /* cells per side of the shadow raster */
#define DRAPE_RASTER_REACH 1.25f /* raster half side / R: room for the ring
                                    stretched to the 1.12 limit and beyond */

WbDrapeDef wb_drape_default(void)
{
    WbDrapeDef d = {
        .radius = 0.15f,
        .disc_radius = 0.09f,
        .grid = 27,
        .solver = WB_CLOTH_XPBD,
        .bending = WB_CLOTH_BEND_DIHEDRAL,
        .substeps = 4,
        .iterations = 8,
        .gravity = 9.81f,
        .max_stretch = 1.12f,
        .settle_speed = 0.01f,
        .settle_frames = 30,
        .max_time = 8.0f,
        .cell = 0.0005f,
    };
    return d;
}

static WbStatus validate(const WbDrapeDef *d, WbError *err)
{
    if (!(d->radius > 0.0f) || !(d->disc_radius > 0.0f && d->disc_radius < d->radius))
        return wb_error_set(err, WB_E_INPUT,
                            "drape radius %g and disc radius %g: need 0 < disc < radius",
                            (double)d->radius, (double)d->disc_radius);
    if (d->grid < 5 || d->grid > WB_CLOTH_MAX_GRID || d->grid % 2 == 0)
        return wb_error_set(err, WB_E_INPUT, "drape grid %d: need an odd count in 5..%d",
                            d->grid, WB_CLOTH_MAX_GRID);
    if (!(d->gravity >= 0.0f) || !(d->settle_speed > 0.0f) || d->settle_frames < 1 ||
        !(d->max_time > 0.0f && d->max_time <= 600.0f))
        return wb_error_set(err, WB_E_INPUT,
                            "drape gravity must be >= 0, settle speed > 0, settle frames >= 1 "
                            "and max time in (0, 600] s");
    if (!(d->cell > 0.0f))
        return wb_error_set(err, WB_E_INPUT, "drape raster cell must be positive");
    return WB_OK;
}

/* One projected triangle into the raster: every cell whose centre is inside
 * (or on an edge) is marked.  Edge functions in double, signed by the
 * triangle's orientation so either winding works. */
static void mark_triangle(unsigned char *m, int side, double x0, double z0, double cell,
                          double p[3][2])
{
    double area2 = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) -
                   (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
    if (area2 == 0.0)
        return;
    double sg = area2 > 0.0 ? 1.0 : -1.0;
    double lo[2] = {p[0][0], p[0][1]}, hi[2] = {p[0][0], p[0][1]};
    for (int k = 1; k < 3; k++) {
        for (int c = 0; c < 2; c++) {
            lo[c] = fmin(lo[c], p[k][c]);
            hi[c] = fmax(hi[c], p[k][c]);
        }
    }
    /* cell q has its centre at x0 + (q + ½)·cell */
    int i0 = (int)ceil((lo[0] - x0) / cell - 0.5), i1 = (int)floor((hi[0] - x0) / cell - 0.5);
    int j0 = (int)ceil((lo[1] - z0) / cell - 0.5), j1 = (int)floor((hi[1] - z0) / cell - 0.5);
    i0 = i0 < 0 ? 0 : i0;
    j0 = j0 < 0 ? 0 : j0;
    i1 = i1 >= side ? side - 1 : i1;
    j1 = j1 >= side ? side - 1 : j1;
    for (int j = j0; j <= j1; j++) {
        double z = z0 + ((double)j + 0.5) * cell;
        for (int i = i0; i <= i1; i++) {
            double x = x0 + ((double)i + 0.5) * cell;
            int in = 1;
            for (int e = 0; e < 3 && in; e++) {
                const double *a = p[e], *b = p[(e + 1) % 3];
                double f = (b[0] - a[0]) * (z - a[1]) - (b[1] - a[1]) * (x - a[0]);
                in = sg * f >= 0.0;
            }
            if (in)
                m[(size_t)j * (size_t)side + (size_t)i] = 1;
        }
    }
}

WbStatus wb_drape_shadow_area(const WbClothState *s, float cx, float cz, float half_extent,
                              float cell, double *area, WbError *err)
{
    if (!(cell > 0.0f) || !(half_extent > 0.0f))
        return wb_error_set(err, WB_E_INPUT, "shadow raster: cell and extent must be positive");
    double sided = ceil(2.0 * (double)half_extent / (double)cell);
    if (sided > DRAPE_MAX_RASTER)
        return wb_error_set(err, WB_E_INPUT, "shadow raster of %.0f cells per side (max %d)",
                            sided, DRAPE_MAX_RASTER);
    int side = (int)sided;
    unsigned char *m = calloc((size_t)side * (size_t)side, 1);
    if (!m)
        return wb_error_set(err, WB_E_IO, "out of memory for a %d² shadow raster", side);
    const double x0 = (double)cx - 0.5 * side * (double)cell;
    const double z0 = (double)cz - 0.5 * side * (double)cell;
    const int nx = s->nx;
    for (int j = 0; j + 1 < s->ny; j++) {
        for (int i = 0; i + 1 < nx; i++) {
            int a = j * nx + i, b = a + 1, c = a + nx, d = c + 1;
            const int tri[2][3] = {{a, b, d}, {a, d, c}};
            for (int t = 0; t < 2; t++) {
                double p[3][2];
                int inert = 0;
                for (int k = 0; k < 3; k++) {
                    int q = tri[t][k];
                    inert |= s->w[q] < 0.0f;
                    p[k][0] = s->x[q];
                    p[k][1] = s->z[q];
                }
                if (!inert)
                    mark_triangle(m, side, x0, z0, cell, p);
            }
        }
    }
    size_t count = 0;
    for (size_t k = 0; k < (size_t)side * (size_t)side; k++)
        count += m[k];
    free(m);
    *area = (double)count * (double)cell * (double)cell;
    return WB_OK;
}

/* Stage 1: the cloth def and the cut, pinned specimen. */
static WbStatus make_specimen(const WbDrapeDef *d, const WbFabric *fabric, WbClothDef *cd,
                              WbClothState *s, WbError *err)
{
    *cd = wb_cloth_default();
    cd->nx = cd->ny = d->grid;
    cd->size[0] = cd->size[1] = 2.0f * d->radius;
    cd->origin[0] = -d->radius;
    cd->origin[1] = 0.0f;
    cd->origin[2] = -d->radius;
    cd->mannequin = false;
    cd->floor = false;
    cd->pin_mode = WB_CLOTH_PIN_NONE;
    cd->fabric = *fabric;
    cd->solver = d->solver;
    cd->bending = d->bending;
    cd->substeps = d->substeps;
    cd->iterations = d->iterations;
    cd->gravity = d->gravity;
    cd->max_stretch = d->max_stretch;
    cd->wind.strength = 0.0f;
    WbStatus st = wb_cloth_init(s, cd, err);
    if (st)
        return st;
    const int c = (d->grid - 1) / 2;
    const double h = (double)d->radius / c;
    const double r2 = (double)d->disc_radius * d->disc_radius;
    for (int j = 0; j < d->grid; j++) {
        for (int i = 0; i < d->grid; i++) {
            int di = i - c, dj = j - c, q2 = di * di + dj * dj;
            if (q2 > c * c)
                wb_cloth_set_inert(s, i, j);
            else if ((double)q2 * h * h <= r2)
                wb_cloth_set_pinned(s, i, j, true);
        }
    }
    return WB_OK;
}

/* Fastest free particle over the last substep, m/s. */
static double max_speed(const WbClothState *s, double dt_sub)
{
    float m2 = 0.0f;
    for (int p = 0; p < s->n; p++) {
        if (!(s->w[p] > 0.0f))
            continue;
        float dx = s->x[p] - s->px[p], dy = s->y[p] - s->py[p], dz = s->z[p] - s->pz[p];
        float v2 = dx * dx + dy * dy + dz * dz;
        m2 = v2 > m2 ? v2 : m2;
    }
    return sqrt((double)m2) / dt_sub;
}

WbStatus wb_drape_run(const WbDrapeDef *def, const WbFabric *fabric, WbDrapeResult *out,
                      WbError *err)
{
    memset(out, 0, sizeof *out);
    WbStatus st = validate(def, err);
    if (st)
        return st;
    WbClothDef cd;
    WbClothState s;
    if ((st = make_specimen(def, fabric, &cd, &s, err)) != WB_OK)
        return st;
    const float reach = DRAPE_RASTER_REACH * def->radius;
    st = wb_drape_shadow_area(&s, 0.0f, 0.0f, reach, def->cell, &out->flat_area, err);

    const float fdt = (float)(1.0 / DRAPE_FPS);
    const double dt_sub = (double)fdt / def->substeps;
    const int max_frames = (int)ceil(def->max_time * DRAPE_FPS);
    int quiet = 0, frame = 0;
    while (st == WB_OK && frame < max_frames) {
        wb_cloth_step(&s, &cd, frame / DRAPE_FPS, fdt);
        frame++;
        quiet = max_speed(&s, dt_sub) < def->settle_speed ? quiet + 1 : 0;
        if (quiet >= def->settle_frames) {
            out->settled = true;
            break;
        }
    }
    if (st == WB_OK && wb_cloth_find_nonfinite(&s) >= 0)
        st = wb_error_set(err, WB_E_INPUT, "drape of %s: the cloth blew up (non-finite)",
                          fabric->name ? fabric->name : "fabric");
    if (st == WB_OK)
        st = wb_drape_shadow_area(&s, 0.0f, 0.0f, reach, def->cell, &out->shadow_area, err);
    if (st == WB_OK) {
        out->frames = frame;
        /* the quiet run began at the end of frame (frame − settle_frames + 1) */
        out->settle_s = out->settled ? (frame - def->settle_frames + 1) / DRAPE_FPS
                                     : (double)def->max_time;
        out->max_stretch = wb_cloth_max_stretch(&s);
        out->disc_area = M_PI * (double)def->disc_radius * def->disc_radius;
        out->drape_coefficient =
            (out->shadow_area - out->disc_area) / (out->flat_area - out->disc_area);
    }
    wb_cloth_free(&s);
    return st;
}

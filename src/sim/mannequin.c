/* mannequin.c — dress form → spheres.  See mannequin.h for the model. */
#include "sim/mannequin.h"

WbMannequinDef wb_mannequin_default(void)
{
    WbMannequinDef d = {
        .position = {0.0f, 0.0f, 0.0f},
        .hip_height = 0.95f,
        .torso_height = 0.55f,
        .hip = {0.19f, 0.12f},
        .waist = {0.15f, 0.10f},
        .chest = {0.18f, 0.12f},
        .shoulder = {0.22f, 0.09f},
        .head_radius = 0.10f,
        .slices = 9,
    };
    return d;
}

int wb_mannequin_sphere_count(const WbMannequinDef *def)
{
    return def->slices * 3 + (def->head_radius > 0.0f ? 1 : 0);
}

/* Piecewise-linear profile through the four girths at t = 0, 1/3, 2/3, 1
 * (hip, waist, chest, shoulder); component c is 0 = half-width, 1 = depth. */
static float profile(const WbMannequinDef *d, float t, int c)
{
    const float g[4] = {d->hip[c], d->waist[c], d->chest[c], d->shoulder[c]};
    float u = t * 3.0f;
    int k = (int)u;
    if (k > 2)
        k = 2;
    float f = u - (float)k;
    return g[k] + (g[k + 1] - g[k]) * f;
}

int wb_mannequin_build(const WbMannequinDef *def, WbSphere *out, int max)
{
    int count = wb_mannequin_sphere_count(def);
    if (def->slices < 2 || def->slices > WB_MANNEQUIN_MAX_SLICES || count > max)
        return -1;
    for (int c = 0; c < 2; c++) {
        if (!(def->hip[c] > 0 && def->waist[c] > 0 && def->chest[c] > 0 &&
              def->shoulder[c] > 0))
            return -1;
    }
    if (!(def->torso_height > 0))
        return -1;
    const float px = def->position[0], py = def->position[1], pz = def->position[2];
    int n = 0;
    for (int s = 0; s < def->slices; s++) {
        float t = (float)s / (float)(def->slices - 1);
        float y = py + def->hip_height + def->torso_height * t;
        float a = profile(def, t, 0), b = profile(def, t, 1);
        if (b > a)
            b = a; /* a slice is never deeper than it is wide */
        float rs = b * WB_MANNEQUIN_SIDE_RATIO;
        float off = a - rs; /* outer edge of the side sphere at ±a */
        out[n++] = (WbSphere){px, y, pz, b};
        out[n++] = (WbSphere){px - off, y, pz, rs};
        out[n++] = (WbSphere){px + off, y, pz, rs};
    }
    if (def->head_radius > 0.0f) {
        float top = py + def->hip_height + def->torso_height;
        out[n++] = (WbSphere){px, top + 0.2f * def->head_radius + def->head_radius, pz,
                              def->head_radius};
    }
    return n;
}

/* cloth_self.c — cloth–cloth repulsion (optional, WbClothDef.self_collision).
 *
 * Particles are hashed into cells of the self-collision thickness (a stable
 * counting sort, so the pair order is fixed); pairs closer than the
 * thickness that are not grid neighbours are pushed apart.
 */
#include "sim/cloth_internal.h"

#include <string.h>

static uint32_t cell_hash(int32_t ix, int32_t iy, int32_t iz, int size)
{
    uint32_t h = ((uint32_t)ix * 73856093u) ^ ((uint32_t)iy * 19349663u) ^
                 ((uint32_t)iz * 83492791u);
    return h & (uint32_t)(size - 1);
}

static float self_thickness(const WbClothState *s, const WbClothDef *def)
{
    if (def->thickness > 0.0f)
        return def->thickness;
    float h = s->rest[FAM_H] < s->rest[FAM_V] ? s->rest[FAM_H] : s->rest[FAM_V];
    return 0.6f * h;
}

/* Particles closer than the thickness that are not grid neighbours (more
 * than two steps apart in i or j) are pushed apart to the thickness, split
 * by inverse mass.  The hash is rebuilt by a stable counting sort, so the
 * pair order — and the result — is fixed. */
void wb_cloth_self_collide(WbClothState *s, const WbClothDef *def)
{
    const float th = self_thickness(s, def), inv = 1.0f / th;
    const int size = s->hash_size, nx = s->nx;
    int32_t *start = s->hash_start, *items = s->hash_items, *key = s->hash_key;
    memset(start, 0, sizeof *start * (size_t)(size + 1));
    for (int i = 0; i < s->n; i++) {
        key[i] = (int32_t)cell_hash((int32_t)floorf(s->x[i] * inv), (int32_t)floorf(s->y[i] * inv),
                                    (int32_t)floorf(s->z[i] * inv), size);
        start[key[i] + 1]++;
    }
    for (int k = 0; k < size; k++)
        start[k + 1] += start[k];
    /* fill using the counts as cursors, then restore the starts */
    for (int i = 0; i < s->n; i++)
        items[start[key[i]]++] = i;
    for (int k = size; k > 0; k--)
        start[k] = start[k - 1];
    start[0] = 0;

    for (int i = 0; i < s->n; i++) {
        int32_t cx = (int32_t)floorf(s->x[i] * inv), cy = (int32_t)floorf(s->y[i] * inv),
                cz = (int32_t)floorf(s->z[i] * inv);
        uint32_t seen[27];
        int n_seen = 0;
        int ii = i % nx, ij = i / nx;
        for (int d = 0; d < 27; d++) {
            uint32_t h = cell_hash(cx + d % 3 - 1, cy + (d / 3) % 3 - 1, cz + d / 9 - 1, size);
            int dup = 0;
            for (int u = 0; u < n_seen; u++)
                dup |= seen[u] == h;
            if (dup)
                continue;
            seen[n_seen++] = h;
            for (int e = start[h]; e < start[h + 1]; e++) {
                int q = items[e];
                if (q <= i)
                    continue;
                int di = q % nx - ii, dj = q / nx - ij;
                if (di >= -2 && di <= 2 && dj >= -2 && dj <= 2)
                    continue;
                float dx = s->x[q] - s->x[i], dy = s->y[q] - s->y[i], dz = s->z[q] - s->z[i];
                float d2 = dx * dx + dy * dy + dz * dz;
                float ws = s->w[i] + s->w[q];
                if (!(d2 < th * th) || !(d2 > 1e-18f) || !(ws > 0.0f) || s->w[i] < 0.0f ||
                    s->w[q] < 0.0f)
                    continue;
                float dist = sqrtf(d2);
                float f = (th - dist) / (dist * ws);
                float wi = s->w[i] * f, wq = s->w[q] * f;
                s->x[i] -= dx * wi;
                s->y[i] -= dy * wi;
                s->z[i] -= dz * wi;
                s->x[q] += dx * wq;
                s->y[q] += dy * wq;
                s->z[q] += dz * wq;
            }
        }
    }
}

/* damage.c — see damage.h. */
#include "core/damage.h"

#include <stdlib.h>
#include <string.h>

void wb_damage_free(WbDamage *d)
{
    free(d->tiles);
    *d = wb_damage_init();
}

void wb_damage_set_tiles(WbDamage *d, int tile_w, int tile_h, int tiles_x, int tiles_y,
                         const uint8_t *flags)
{
    const size_t n = (size_t)tiles_x * (size_t)tiles_y;
    if (tile_w <= 0 || tile_h <= 0 || tiles_x <= 0 || tiles_y <= 0) {
        d->kind = WB_DAMAGE_ALL;
        return;
    }
    if (n > d->cap) {
        uint8_t *t = realloc(d->tiles, n);
        if (!t) {
            d->kind = WB_DAMAGE_ALL;
            return;
        }
        d->tiles = t;
        d->cap = n;
    }
    memcpy(d->tiles, flags, n);
    d->kind = WB_DAMAGE_TILES;
    d->tile_w = tile_w;
    d->tile_h = tile_h;
    d->tiles_x = tiles_x;
    d->tiles_y = tiles_y;
}

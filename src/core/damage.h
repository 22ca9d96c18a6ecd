/* damage.h — which parts of an image changed since it was last handed on.
 *
 * A renderer that draws only what moved (the photo path carrying a frame
 * over) knows which tiles of its output it touched; whoever consumes the
 * image next (the encoder sink's RGBA → YUV conversion) can then redo only
 * those.  The record is a grid of tile_w × tile_h tiles over the image, row
 * major, one flag byte per tile (the last column and row of tiles may
 * reach past the image's edge).  Two shorthands need no grid: everything
 * may have changed (the safe answer whenever nothing better is known) and
 * nothing did (a frame sent again unchanged).
 */
#ifndef WB_DAMAGE_H
#define WB_DAMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum WbDamageKind {
    WB_DAMAGE_ALL,   /* any pixel may have changed */
    WB_DAMAGE_NONE,  /* no pixel changed */
    WB_DAMAGE_TILES, /* the pixels of the flagged tiles may have, no other */
} WbDamageKind;

typedef struct WbDamage {
    WbDamageKind kind;
    int tile_w, tile_h;     /* WB_DAMAGE_TILES: tile size in pixels */
    int tiles_x, tiles_y;   /* and the grid, ceil(w / tile_w) × ceil(h / tile_h) */
    uint8_t *tiles;         /* tiles_x × tiles_y flags, nonzero = changed; owned */
    size_t cap;             /* bytes allocated at tiles */
} WbDamage;

/* A record that says "everything" and owns nothing yet. */
static inline WbDamage wb_damage_init(void)
{
    return (WbDamage){.kind = WB_DAMAGE_ALL};
}

void wb_damage_free(WbDamage *d);

/* d becomes a copy of the tile grid `flags` (tiles_x × tiles_y, row major).
 * Short of memory it says WB_DAMAGE_ALL instead, which is never wrong. */
void wb_damage_set_tiles(WbDamage *d, int tile_w, int tile_h, int tiles_x, int tiles_y,
                         const uint8_t *flags);

/* The next run of nonzero flags in row[0..n), tiles tile_w pixels wide,
 * from tile *tx on: its pixel columns [*x0, *x1) of an image w pixels
 * wide; false when the row has no more.  *tx moves past the run. */
static inline bool wb_tile_run(const uint8_t *row, int n, int tile_w, int w, int *tx, int *x0,
                               int *x1)
{
    int t = *tx;
    while (t < n && !row[t])
        t++;
    if (t >= n) {
        *tx = t;
        return false;
    }
    int t1 = t + 1;
    while (t1 < n && row[t1])
        t1++;
    *x0 = t * tile_w;
    *x1 = t1 * tile_w < w ? t1 * tile_w : w;
    *tx = t1;
    return true;
}

/* wb_tile_run over tile row ty of d (WB_DAMAGE_TILES). */
static inline bool wb_damage_next_run(const WbDamage *d, int ty, int w, int *tx, int *x0, int *x1)
{
    return wb_tile_run(d->tiles + (size_t)ty * (size_t)d->tiles_x, d->tiles_x, d->tile_w, w, tx,
                       x0, x1);
}

#endif

/* cloth_links.c — the distance links: stretch, shear and skip-one bend.
 *
 * Design note: speed comes from the grid, not from tricks in the maths.
 * Every link family of a regular grid splits into a few colours whose links
 * share no particle, and inside one colour the links of a row are adjacent
 * in memory:
 *   vertical   (i,j)-(i,j+1)    a = row j, b = a + nx      rows j even, then odd
 *   diagonal   (i,j)-(i+1,j+1)  a = row j, b = a + nx + 1  rows j even, then odd
 *   diagonal   (i+1,j)-(i,j+1)  a = row j, b = a + nx − 1  rows j even, then odd
 *   bend vert. (i,j)-(i,j+2)    a = row j, b = a + 2nx     rows j mod 4 ∈ {0,1}, {2,3}
 *   horizontal (i,j)-(i+1,j)    a, b interleaved in a row  i even, then odd
 *   bend hor.  (i,j)-(i+2,j)    a, b interleaved in a row  i mod 4 ∈ {0,1}, {2,3}
 * So W links at a time (4, 8 with AVX2, 16 with AVX-512) are loaded with
 * plain vector loads (or one shuffle for the interleaved ones), projected
 * together and stored back (cloth_links_kernel.inc).  Links of one colour
 * are independent, so this is exactly the Gauss–Seidel sweep "colour by
 * colour", in a fixed order: results are deterministic and do not depend
 * on the vector width (the lane kernel and the scalar tail do the same
 * IEEE operations in the same order).
 * The plain PBD solver (the reference) needs no colours for the four row
 * families: any W consecutive links of one are independent (b − a >= nx − 1),
 * so the sequential pass over all its links in index order goes W at a time
 * as one range over the whole sheet (range_plain), up in odd iterations and
 * back down in even ones (a pass one way only pulls the sheet that way: the
 * reference drape crept along j); only the two in-row families keep their
 * colours.  The sweeps are bound by their vector arithmetic (bench/NOTES.md
 * has what was measured and left out).
 */
#include "sim/cloth_kernels.h"

#include <stddef.h>

/* The same projection for one link (tails, scalar paths). */
static void link1(WbClothState *s, int a, int b, float *lam, const LinkParams *p)
{
    float dx = s->x[b] - s->x[a], dy = s->y[b] - s->y[a], dz = s->z[b] - s->z[a];
    float d2 = dx * dx + dy * dy + dz * dz;
    float wa = s->w[a], wb = s->w[b];
    if (p->ftl) {
        if (s->pin_depth[a] < s->pin_depth[b])
            wa = 0.0f;
        else if (s->pin_depth[b] < s->pin_depth[a])
            wb = 0.0f;
    }
    float ws = wa + wb;
    if (!(d2 > LINK_EPS2) || !(ws > 0.0f) || !(wa >= 0.0f && wb >= 0.0f))
        return;
    if (p->unilateral && !(d2 > p->rest * p->rest))
        return;
    float d = sqrtf(d2);
    float c = d - p->rest;
    if (p->unilateral && !(c > 0.0f))
        return;
    if (plain_pbd(lam, p)) { /* the share form of PFX_flink, operation for operation */
        float t = (-p->k * c) / d, ta = (wa / ws) * t, tb = (wb / ws) * t;
        s->x[a] -= ta * dx;
        s->y[a] -= ta * dy;
        s->z[a] -= ta * dz;
        s->x[b] += tb * dx;
        s->y[b] += tb * dy;
        s->z[b] += tb * dz;
        return;
    }
    float l = lam ? *lam : 0.0f;
    float sc = (-p->k * c - p->at * l) / ((ws + p->at) * d);
    if (lam)
        *lam = l + sc * d;
    float ox = dx * sc, oy = dy * sc, oz = dz * sc;
    s->x[a] -= wa * ox;
    s->y[a] -= wa * oy;
    s->z[a] -= wa * oz;
    s->x[b] += wb * ox;
    s->y[b] += wb * oy;
    s->z[b] += wb * oz;
}

/* A row's worth of row-family links for XPBD and the stretch limit (plain
 * PBD goes over the whole sheet, range_plain).  The row dispatchers call a
 * narrower width only while links are left: these run once per row and
 * sweep, and a kernel call with nothing to do is much of a short row. */
void wb_cloth_links_contig(WbClothState *s, int a0, int boff, int count, float *lam,
                           const LinkParams *p)
{
    int k = 0;
#if WB_SIMD_WIDE
    if (s->lanes == 16)
        k = wb_cloth_v16_contig(s, a0, boff, count, lam, p);
    if (s->lanes >= 8 && k < count)
        k += wb_cloth_v8_contig(s, a0 + k, boff, count - k, lam, p);
#endif
    if (k < count)
        k += wb_cloth_v4_contig(s, a0 + k, boff, count - k, lam, p);
    for (; k < count; k++)
        link1(s, a0 + k, a0 + k + boff, lam ? lam + a0 + k : NULL, p);
}

/* One colour of an in-row family over the sheet (plain PBD): the widest
 * blocks, then 4-wide ones from where they stopped, then single links. */
static void sheet_plain(WbClothState *s, int span, int colour, const LinkParams *p)
{
    const int nx = s->nx, n = s->n;
    const float k = p->k, rest = p->rest;
    int q = span * colour;
#if WB_SIMD_WIDE
    if (s->lanes == 16)
        q = span == 1 ? wb_cloth_v16_sstride2(s, q, k, rest, 1)
                      : wb_cloth_v16_spairs(s, q, k, rest, 2);
    if (s->lanes >= 8)
        q = span == 1 ? wb_cloth_v8_sstride2(s, q, k, rest, 1)
                      : wb_cloth_v8_spairs(s, q, k, rest, 2);
#endif
    q = span == 1 ? wb_cloth_v4_sstride2(s, q, k, rest, 1) : wb_cloth_v4_spairs(s, q, k, rest, 2);
    for (int a = q; a + span < n; a++) {
        if ((a / span) % 2 == colour && a % nx < nx - span)
            link1(s, a, a + span, NULL, p);
    }
}

static int row_stride2(WbClothState *s, int row0, int first, int len, float *lam,
                       const LinkParams *p)
{
#if WB_SIMD_WIDE
    if (s->lanes == 16)
        first = wb_cloth_v16_stride2(s, row0, first, len, lam, p);
    if (s->lanes >= 8 && first + 1 < len) /* a link (first, first + 1) is left */
        first = wb_cloth_v8_stride2(s, row0, first, len, lam, p);
#endif
    return first + 1 < len ? wb_cloth_v4_stride2(s, row0, first, len, lam, p) : first;
}

static int row_pairs(WbClothState *s, int row0, int first, int len, float *lam,
                     const LinkParams *p)
{
#if WB_SIMD_WIDE
    if (s->lanes == 16)
        first = wb_cloth_v16_pairs(s, row0, first, len, lam, p);
    if (s->lanes >= 8 && first + 2 < len) /* a link (first, first + 2) is left */
        first = wb_cloth_v8_pairs(s, row0, first, len, lam, p);
#endif
    return first + 2 < len ? wb_cloth_v4_pairs(s, row0, first, len, lam, p) : first;
}

/* The two colours of a family in one pass over the rows.  The sweep is
 * "colour 0 everywhere, then colour 1 everywhere", but a colour-1 link only
 * has to wait for the colour-0 links that share a particle with it, and
 * must come before none of them: so colour 1 can trail colour 0 by a few
 * rows and the result is the same, bit for bit, while each row is still in
 * a near cache when its second colour comes round (two passes over the
 * positions per family cost more at 140×140).  The trail must be long
 * enough for the stores of the colour-0 rows to complete before colour 1
 * reloads those particles: 3 rows were too few, 8 and 16 equally good
 * (bench/NOTES.md). */
#define COLOUR_TRAIL 8 /* rows */

static void row_horizontal(WbClothState *s, int j, int colour, float *lam, const LinkParams *p)
{
    const int nx = s->nx, row0 = j * nx;
    int q = row_stride2(s, row0, colour, nx, lam, p);
    for (int i = q; i + 1 < nx; i += 2)
        link1(s, row0 + i, row0 + i + 1, lam ? lam + row0 + i : NULL, p);
}

/* links within a row never meet another row's: colour 1 of row j − trail
 * after colour 0 of row j */
static void sweep_horizontal(WbClothState *s, float *lam, const LinkParams *p)
{
    if (plain_pbd(lam, p)) {
        sheet_plain(s, 1, 0, p);
        sheet_plain(s, 1, 1, p);
        return;
    }
    for (int j = 0; j < s->ny + COLOUR_TRAIL; j++) {
        if (j < s->ny)
            row_horizontal(s, j, 0, lam, p);
        if (j - COLOUR_TRAIL >= 0)
            row_horizontal(s, j - COLOUR_TRAIL, 1, lam, p);
    }
}

static void row_bend_horizontal(WbClothState *s, int j, int colour, float *lam,
                                const LinkParams *p)
{
    const int nx = s->nx, row0 = j * nx;
    int q = row_pairs(s, row0, 2 * colour, nx, lam, p);
    for (int i = q; i + 2 < nx; i++) {
        if (((i >> 1) & 1) == colour)
            link1(s, row0 + i, row0 + i + 2, lam ? lam + row0 + i : NULL, p);
    }
}

static void sweep_bend_horizontal(WbClothState *s, float *lam, const LinkParams *p)
{
    if (plain_pbd(lam, p)) {
        sheet_plain(s, 2, 0, p);
        sheet_plain(s, 2, 1, p);
        return;
    }
    for (int j = 0; j < s->ny + COLOUR_TRAIL; j++) {
        if (j < s->ny)
            row_bend_horizontal(s, j, 0, lam, p);
        if (j - COLOUR_TRAIL >= 0)
            row_bend_horizontal(s, j - COLOUR_TRAIL, 1, lam, p);
    }
}

static void row_links(WbClothState *s, int fam, int j, int dj, float *lam, const LinkParams *p)
{
    const int nx = s->nx, row0 = j * nx;
    switch (fam) {
    case FAM_V:
    case FAM_BV: wb_cloth_links_contig(s, row0, dj * nx, nx, lam, p); break;
    case FAM_D1: wb_cloth_links_contig(s, row0, nx + 1, nx - 1, lam, p); break;
    default: wb_cloth_links_contig(s, row0 + 1, nx - 1, nx - 1, lam, p); break;
    }
}

static void range_plain(WbClothState *s, int fam, const LinkParams *p, int rev)
{
    const int nx = s->nx, ny = s->ny;
    int a0 = 0, boff = nx, count = (ny - 1) * nx, bad = -1;
    switch (fam) {
    case FAM_BV: boff = 2 * nx, count = (ny - 2) * nx; break;
    case FAM_D1: boff = nx + 1, count = (ny - 1) * nx - 1, bad = nx - 1; break;
    case FAM_D2: boff = nx - 1, count = (ny - 1) * nx, bad = 0; break;
    default: break;
    }
    /* [lo, hi): the links not yet done; a pass back does the range's end
     * first, each narrower width the end of what is left */
    int lo = a0, hi = a0 + count, k = 0;
    /* The blocks start on a multiple of 8 links, so their a ends sit on
     * 32-byte boundaries and only the b ends can cross a cache line: the
     * second diagonal's range starts at 0 (column 0 is its bad column
     * anyway), and a pass back over it first does the links past the last
     * multiple of 8 one by one, so that its blocks line up too (with both
     * ends off the boundary half of its loads and stores crossed a line).
     * Links of one range are done in the same order either way. */
    if (rev && fam == FAM_D2) {
        for (; hi % 8 != 0; hi--) {
            if ((hi - 1) % nx != bad)
                link1(s, hi - 1, hi - 1 + boff, NULL, p);
        }
    }
#if WB_SIMD_WIDE
    if (s->lanes == 16 && nx - 1 >= 16) {
        k = wb_cloth_v16_range_fast(s, lo, boff, hi - lo, p->k, p->rest, bad, rev);
        rev ? (hi -= k) : (lo += k);
    }
    if (s->lanes >= 8 && nx - 1 >= 8) {
        k = wb_cloth_v8_range_fast(s, lo, boff, hi - lo, p->k, p->rest, bad, rev);
        rev ? (hi -= k) : (lo += k);
    }
#endif
    if (nx - 1 >= 4) {
        k = wb_cloth_v4_range_fast(s, lo, boff, hi - lo, p->k, p->rest, bad, rev);
        rev ? (hi -= k) : (lo += k);
    }
    for (int q = lo; q < hi; q++) {
        int a = rev ? lo + hi - 1 - q : q;
        if (a % nx != bad)
            link1(s, a, a + boff, NULL, p);
    }
}

/* Row families (XPBD; plain PBD goes to range_plain): links from row j to
 * row j + dj, colour (j mod 2dj) / dj (rows alternate for neighbours; pairs
 * of rows for the skip-one bend).
 * A colour-1 link row r touches rows r and r + dj, which colour-0 link rows
 * up to r + dj touch too: it goes once colour 0 has passed r + dj (plus the
 * trail); colour-0 rows still to come start above it, so none of them
 * touches a row it has changed. */
static void sweep_rows(WbClothState *s, int fam, float *lam, const LinkParams *p, int rev)
{
    if (plain_pbd(lam, p)) {
        range_plain(s, fam, p, rev);
        return;
    }
    const int ny = s->ny;
    int dj = fam == FAM_BV ? 2 : 1;
    int period = 2 * dj;
    int next1 = 0; /* the next colour-1 link row to do */
    for (int j = 0; j + dj < ny; j++) {
        if ((j % period) / dj == 0)
            row_links(s, fam, j, dj, lam, p);
        for (; next1 + dj < ny && next1 + dj + COLOUR_TRAIL <= j; next1++) {
            if ((next1 % period) / dj == 1)
                row_links(s, fam, next1, dj, lam, p);
        }
    }
    for (; next1 + dj < ny; next1++) {
        if ((next1 % period) / dj == 1)
            row_links(s, fam, next1, dj, lam, p);
    }
}

/* rev: the plain PBD row families sweep back (alternate iterations, so the
 * sequential passes pull no way more than the other) */
void wb_cloth_links_stretch(WbClothState *s, const Stiffness *st, int rev)
{
    const bool xpbd = st->xpbd;
    LinkParams p = st->stretch;
    p.rest = s->rest[FAM_H];
    sweep_horizontal(s, xpbd ? s->lambda[FAM_H] : NULL, &p);
    p.rest = s->rest[FAM_V];
    sweep_rows(s, FAM_V, xpbd ? s->lambda[FAM_V] : NULL, &p, rev);
}

void wb_cloth_links_shear(WbClothState *s, const Stiffness *st, int rev)
{
    const bool xpbd = st->xpbd;
    sweep_rows(s, FAM_D1, xpbd ? s->lambda[FAM_D1] : NULL, &st->shear, rev);
    sweep_rows(s, FAM_D2, xpbd ? s->lambda[FAM_D2] : NULL, &st->shear, rev);
}

void wb_cloth_links_bend(WbClothState *s, const Stiffness *st, int rev)
{
    LinkParams p = st->bend;
    p.rest = s->rest[FAM_BH];
    sweep_bend_horizontal(s, st->xpbd ? s->lambda[FAM_BH] : NULL, &p);
    p.rest = s->rest[FAM_BV];
    sweep_rows(s, FAM_BV, st->xpbd ? s->lambda[FAM_BV] : NULL, &p, rev);
}

/* raster.h — wobble's 2D software rasterizer (SPEC §5): textured, flat and
 * vertex-coloured triangle meshes, the photo grid, and antialiased
 * polylines, discs and polygons (rope, outlines, traces, overlays).
 *
 *     WbRaster r;  wb_raster_init(&r, w, h, samples, &err);      once
 *     wb_raster_begin(&r, background);                           per frame
 *     wb_raster_mesh(&r, &mesh);  wb_raster_polyline(&r, ...);   any number
 *     wb_raster_end(&r, pool, &image, &err);                     draws, resolves
 *     wb_raster_free(&r);
 *
 * Draw calls only RECORD; wb_raster_end() draws them, band by band
 * (WB_RASTER_BAND_ROWS rows: each band cleared, given every primitive in
 * submission order, and resolved while its samples are in the cache), so
 * any number of threads gives the same bytes.
 *
 * Pixels: x right, y down; pixel (i,j) covers [i,i+1)×[j,j+1), centre
 * (i+0.5, j+0.5).  Vertices are floats kept to 1/256 px (never snapped:
 * sub-pixel motion moves edges smoothly), clamped to ±2^20 px; a NaN/Inf
 * vertex drops its triangles.
 *
 * Coverage: S = 1, 4, 8 or 16 samples per pixel (Direct3D patterns), exact
 * fixed-point edges with the TOP-LEFT fill rule (raster_core.h): a mesh has
 * no seams and no double blending, its silhouette S levels of
 * antialiasing.  Either winding draws; zero area draws nothing.
 *
 * Shading: once per pixel per triangle at the PIXEL CENTRE, from the
 * triangle's planes even just outside it (as GPUs do), so a continuous map
 * (the photo) shows no interior edge; WbMesh.centroid shades partly
 * covered pixels at their covered samples' centroid instead (atlases).
 * Opaque colours are stored, others blended "over".  Texture sampling
 * follows texture.h.
 *
 * Colour: samples are premultiplied RGBA8 (texture.h's WB_RGBA); the
 * resolve averages them and writes straight-alpha RGBA8, rounded
 * (c = round(255·Σc/Σa), a = round(Σa/S)): a transparent background keeps
 * correct colours at antialiased edges.
 */
#ifndef WB_RASTER_H
#define WB_RASTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/damage.h"
#include "core/error.h"
#include "core/image.h"
#include "core/pool.h"
#include "render/texture.h"

/* Rows per band.  Fixed (never derived from the thread count) because the
 * band split must not change the output.  A band's samples live in one
 * per-thread buffer of w·32·S·4 bytes (960 KiB at 1920 wide and 4 samples:
 * L2/L3 resident); a triangle crossing a band boundary is set up once per
 * band, which is what argues against thinner bands. */
#define WB_RASTER_BAND_ROWS 32

/* A 2D scale-and-offset map: (x, y) → (sx·x + ox, sy·y + oy). */
typedef struct WbXform2 {
    float sx, sy, ox, oy;
} WbXform2;

/* How a mesh is coloured. */
typedef enum WbPaint {
    WB_PAINT_COLOR,        /* one premultiplied colour (`color`) */
    WB_PAINT_VERTEX_COLOR, /* per-vertex premultiplied RGBA (`rgba`), interpolated */
    WB_PAINT_TEXTURE       /* bilinear texture lookup at interpolated (u, v) */
} WbPaint;

/* A triangle mesh.  All arrays are borrowed and must stay valid and
 * unchanged until wb_raster_end() returns. */
typedef struct WbMesh {
    /* Geometry: n_vertices positions in caller units, mapped to pixels by
     * to_px. */
    int n_vertices;
    const float *x, *y;
    WbXform2 to_px;

    /* Topology: `indices` (3 per triangle, each < n_vertices) and
     * n_triangles; or indices == NULL and a regular grid of grid_cols ×
     * grid_rows cells over (grid_cols+1)·(grid_rows+1) vertices, vertex
     * (i, j) at index j·(grid_cols+1) + i, cell (i, j) split into the
     * triangles {(i,j), (i+1,j), (i,j+1)} and {(i+1,j), (i+1,j+1), (i,j+1)}
     * (n_triangles is then ignored). */
    const uint32_t *indices;
    int n_triangles;
    int grid_cols, grid_rows;

    WbPaint paint;
    uint32_t color;            /* WB_PAINT_COLOR: premultiplied, see wb_rgba_premul() */
    const float *rgba;         /* WB_PAINT_VERTEX_COLOR: 4 floats per vertex,
                                  premultiplied, each in [0, 1] */
    const WbTexture *texture;  /* WB_PAINT_TEXTURE */
    const float *u, *v;        /* WB_PAINT_TEXTURE: per-vertex coordinates in caller
                                  units, mapped to texels by to_texel */
    WbXform2 to_texel;

    /* Optional per-vertex opacity in [0, 1] multiplying the paint (NULL =
     * opaque paint as given).  Triangles whose three values are all <= 0
     * are skipped: they would draw nothing. */
    const float *alpha;

    /* Shade partly covered pixels at the centroid of their covered samples
     * instead of the pixel centre (see "Shading" above). */
    bool centroid;
} WbMesh;

/* Ends of a polyline.  Joins are always round. */
typedef enum WbCap { WB_CAP_BUTT, WB_CAP_ROUND } WbCap;

struct WbRasterCmd;
struct WbRasterWorker;

/* The render target and its recorded draw calls.  Caller-owned; every field
 * is private except w, h and samples (read-only after init). */
/* One output image the photo path drew into, as the raster remembers it
 * (wb_raster_carry_over). */
#define WB_RASTER_CARRY_SLOTS 2
typedef struct WbRasterCarry {
    const uint8_t *px;              /* the image: its pixels, */
    int w, h;
    ptrdiff_t stride;               /* size and row stride; NULL px: unused */
    bool valid;                     /* it holds the photo frame drawn from: */
    int32_t *vtx;                   /* these fixed-point vertices, */
    size_t cap_vtx;
    float *tuv;                     /* these scaled texture coordinates, */
    size_t cap_tuv;
    const WbTexture *texture;       /* this texture, background and grid */
    uint32_t background;
    int cols, rows;
    uint64_t used;                  /* carry_clock when last drawn into */
} WbRasterCarry;

typedef struct WbRaster {
    int w, h;         /* pixels */
    int samples;      /* 1, 4, 8 or 16 */

    uint32_t background;            /* premultiplied, set by wb_raster_begin */
    struct WbRasterCmd *cmds;
    int n_cmds, cap_cmds;
    int32_t *shape_xy;              /* recorded shape vertices, fixed point, 2 per vertex */
    size_t n_shape_v, cap_shape_v;
    uint32_t *shape_tri;            /* recorded shape triangles, 3 per triangle */
    size_t n_shape_t, cap_shape_t;
    bool failed;                    /* a draw call ran out of memory */

    /* Scratch kept between frames so steady-state frames do not allocate. */
    int32_t *vtx;                   /* transformed mesh vertices */
    size_t cap_vtx;
    float *tuv;                     /* scaled texture coordinates of textured meshes */
    size_t cap_tuv;
    struct WbRasterChunk *chunks;
    size_t cap_chunks;
    uint8_t *tri_aa;                /* photo path: per triangle, drawn with MSAA only */
    size_t cap_tri_aa;
    struct WbRasterWorker *workers;
    int n_workers;

    /* Samples after the first draw call, kept between frames
     * (wb_raster_keep_first). */
    uint32_t *kept;                 /* h·w·samples, or NULL */
    uint32_t kept_background;       /* the background they were drawn on */
    bool kept_valid;
    int keep_mode;                  /* this frame: 0 off, 1 keep, 2 reuse */

    /* Carrying unchanged pixels over between photo frames
     * (wb_raster_carry_over): what each of the last output images the
     * caller passed was drawn from. */
    bool carry;                     /* enabled by the caller */
    WbRasterCarry carried[WB_RASTER_CARRY_SLOTS];
    uint64_t carry_clock;           /* frames drawn into slots, for least recently used */
    uint8_t *dirty;                 /* per 16×8-pixel tile: must be drawn again */
    size_t cap_dirty;
    bool drew_dirty;                /* the last frame drew only the dirty tiles */

    /* Tests: convert vertices and draw the photo path's flat cells one at
     * a time instead of eight per AVX2 vector (the bytes must not differ). */
    bool one_at_a_time;
    /* Tests and benchmarks: no AVX-512 paths where the CPU has them, the
     * AVX2 ones instead (the bytes must not differ). */
    bool no_avx512;
} WbRaster;

/* Prepare a w×h target with `samples` samples per pixel (1, 4, 8 or 16).
 * WB_E_INPUT for a bad size or sample count, WB_E_IO when out of memory. */
WbStatus wb_raster_init(WbRaster *r, int w, int h, int samples, WbError *err);
void wb_raster_free(WbRaster *r);

/* Start a frame: forget recorded draws; every sample starts as
 * `background` (premultiplied; 0 = transparent). */
void wb_raster_begin(WbRaster *r, uint32_t background);

/* Keep the first draw call's result from frame to frame: for a still layer
 * under moving ones (the photo view's rest-pose pass under a mask).  Call
 * between wb_raster_begin() and wb_raster_end(); it applies to that frame.
 *   reuse = false: draw as usual and keep the samples as they are after the
 *     first recorded draw call (w·h·samples·4 bytes, allocated once; when
 *     memory is short nothing is kept and nothing fails).
 *   reuse = true: the caller promises that the first draw call is the same
 *     as in the last frame that kept it (same kind, parameters and array
 *     contents).  If samples were kept on the same background, the first
 *     draw call is not drawn again: every band starts from the kept samples.
 *     Otherwise the frame is drawn and kept as with reuse = false.
 * Either way the output bytes are exactly those of drawing everything. */
void wb_raster_keep_first(WbRaster *r, bool reuse);

/* Let photo frames reuse the pixels an output image already holds where
 * nothing that reaches them changed.  With `on`, the raster remembers the
 * last WB_RASTER_CARRY_SLOTS output images it drew a photo frame into (by
 * pixel pointer, size and stride) and what each was drawn from.  When a
 * frame takes the photo path (see wb_raster_photo_grid) into
 * one of them, it compares the frame's fixed-point vertices and texture
 * coordinates with that image's, cell by cell: a tile of pixels that no
 * moved cell reaches, before or after its move, comes out of the same
 * cells with the same vertices, hence the same bytes, and is left as the
 * image holds it; only the other tiles are drawn.  So a caller that
 * alternates two images (one being encoded while the next is drawn) gets
 * each frame drawn over the one two frames back, and no copy.
 *
 * The caller promises that, while this is on, (1) the texture's texels do
 * not change, and (2) the pixels of an output image it passes stay as
 * wb_raster_end left them until it passes that image again; to hand in an
 * image whose pixels changed, or a new image that may sit at a freed one's
 * address, call wb_raster_carry_over(r, true) first: it forgets every
 * image.  (The texture pointer, background, grid and every coordinate are
 * checked here.)  The output is exactly that of drawing everything; costs
 * 16 bytes per vertex per remembered image. */
void wb_raster_carry_over(WbRaster *r, bool on);

/* What the last wb_raster_end changed in the image it drew into, against
 * what that image held before: when the frame was carried over, the tiles
 * it drew (16 × 8 pixels: every other pixel is as it was), else
 * WB_DAMAGE_ALL.  For a consumer that redoes its own work only there (the
 * sinks' YUV conversion). */
void wb_raster_damage(const WbRaster *r, WbDamage *d);

/* Record a mesh (arrays borrowed until wb_raster_end). */
void wb_raster_mesh(WbRaster *r, const WbMesh *mesh);

/* Record the photo grid: a grid mesh (indices NULL) painted with a
 * texture (WB_PAINT_TEXTURE), no per-vertex alpha, centre shading.  Drawn
 * alone in a frame with MSAA (samples > 1, wb_raster_keep_first not
 * called), it takes the PHOTO PATH: the S samples are spent only in the
 * 16×8-pixel tiles an edge can show in (tiles reached by a border cell, a
 * flipped or degenerate triangle, or a very large one), drawn exactly as
 * wb_raster_mesh draws; every other pixel takes one sample at its centre
 * from the triangle owning it under the same fill rule, shaded the same
 * way: what all S samples would hold there but for the small differences
 * between neighbouring triangles' planes.  With wb_raster_carry_over,
 * tiles no moved cell reaches are left as the output image holds them.
 * In any other frame it draws exactly as wb_raster_mesh. */
void wb_raster_photo_grid(WbRaster *r, const WbMesh *grid);

/* Record a filled polygon of n points (xy = x0,y0,x1,y1,..., pixels; copied)
 * with the EVEN-ODD rule, so concave and self-intersecting outlines are
 * exact.  The whole polygon blends once: overlapping parts never darken. */
void wb_raster_polygon(WbRaster *r, const float *xy, int n, uint32_t color);

/* Record a disc (pixels; copied).  The circle is approximated by a polygon
 * whose chords stay within 1/64 px of it. */
void wb_raster_disc(WbRaster *r, float cx, float cy, float radius, uint32_t color);

/* Record a polyline of n points (pixels; copied) `width` px wide: the union
 * of its segments' rectangles and round joins (and round caps with
 * WB_CAP_ROUND), blended once, so a translucent line never darkens where
 * its pieces overlap.  A single point with round caps is a dot. */
void wb_raster_polyline(WbRaster *r, const float *xy, int n, float width, uint32_t color,
                        WbCap cap);

/* Draw everything recorded since wb_raster_begin into `out` (w×h, caller-
 * owned) using the pool's threads (NULL = this thread).  The result is the
 * same for every pool size.  WB_E_IO when memory ran out while recording or
 * drawing (out is then unspecified).  The recording is kept: calling again
 * draws the same frame. */
WbStatus wb_raster_end(WbRaster *r, WbPool *pool, WbImage *out, WbError *err);

/* The sample pattern: offsets from the pixel centre in 1/16 px, for
 * i in [0, samples).  Exposed for tests and tools. */
void wb_raster_sample_offset(int samples, int i, int *dx16, int *dy16);

/* Tests: the photo path's check that `lanes` (8: AVX2, 16: AVX-512)
 * consecutive cells drawn as one group cover no pixel twice (when they do,
 * the group is drawn cell by cell).  Lane l covers offset k = dy·W + dx
 * (dx < W, dy < H, H·W <= 32) of its box, whose first pixel is (c0[l],
 * r0[l]) and whose last column is c0[l] + wx[l], where bit k of mask[l] is
 * set.  1: every pixel at most once; 0: some pixel twice (or the group too
 * spread out to check); -1: this build or CPU has no such path. */
int wb_raster_group_owns_pixels(int lanes, const uint32_t *mask, const int32_t *c0,
                                const int32_t *r0, const int32_t *wx, int W, int H);

#endif

/* photo_view.h — draws the photo mesh (SPEC §4.1) through the rasterizer.
 *
 * Mesh coordinates are in units of the image's SHORTER edge: with the photo
 * W×H pixels and m = min(W, H), the image spans [0, W/m] × [0, H/m], origin
 * top left, y down.  Vertex (i, j) of the (grid+1)² lattice is at index
 * j·(grid+1) + i, rest position (i/grid · W/m, j/grid · H/m).
 *
 * Texture coordinates are the REST positions, so an undeformed mesh shows
 * the photo undistorted.  The photo is placed in the output by the fit mode:
 * contain letterboxes the whole image, cover crops it to fill; both keep the
 * aspect ratio and centre the image.  With fit contain and an output of the
 * photo's own size, each output pixel centre maps to the same texel centre
 * and an undeformed mesh reproduces the photo exactly.  When the photo is
 * shown at less than 3/4 of its size it is first shrunk by an exact area
 * average to about the displayed size (once, at init), so minified photos do
 * not alias.
 *
 * With a mask (per-vertex weights in [0, 1]) the frame is two passes over
 * the same vertices: the whole mesh at REST positions (the still
 * background), then the triangles with any weight > 0 at CURRENT positions,
 * their opacity multiplied by the interpolated weight (a soft edge).  The
 * rest pass is the same every frame while the rest positions are: the view
 * keeps its samples (wb_raster_keep_first) and draws only the moving pass,
 * checking the rest positions against a copy each frame.
 *
 * The rest pass would show the object's own pixels where the object swung
 * away (a ghost).  Given the photo's mask and a fill (core/inpaint.h), the
 * view makes a second texture once, the photo with the masked region filled,
 * and draws the rest pass from it; the moving pass keeps the photo.
 *
 * Without a mask, where the border is pulled inwards the view shows what
 * def.edge says lies beyond the photo (render/photo_edge.h); with one, the
 * rest pass already covers the photo's place.
 */
#ifndef WB_PHOTO_VIEW_H
#define WB_PHOTO_VIEW_H

#include <stdbool.h>

#include "core/color.h"
#include "core/error.h"
#include "core/fit.h"
#include "core/image.h"
#include "core/inpaint.h"
#include "core/pool.h"
#include "render/photo_edge.h"
#include "render/raster.h"
#include "render/texture.h"

typedef struct WbPhotoViewDef {
    const WbImage *image;  /* the photo, straight RGBA; read during init only */
    int grid;              /* cells per side, >= 1 */
    int width, height;     /* output size in pixels */
    WbFit fit;
    WbColor background;    /* straight RGBA 0..1; ignored when transparent */
    bool transparent;      /* background alpha 0 */
    int samples;           /* antialiasing samples per pixel: 1, 4, 8 or 16 */
    /* The moving object: image-sized weights (photo w×h, read during init,
     * copied), and how the rest pass fills it; either NULL = no fill (the
     * rest pass shows the photo). */
    const float *mask;
    const WbInpaintDef *fill;
    WbEdgeMode edge;       /* beyond the border (0 = clamp) */
    WbColor edge_color;    /* straight RGBA 0..1, for WB_EDGE_COLOR */
} WbPhotoViewDef;

typedef struct WbPhotoView {
    int grid;
    int img_w, img_h;      /* the photo's size in pixels */
    WbXform2 to_px;        /* shorter-edge units → output pixels */
    WbXform2 to_texel;     /* shorter-edge units → texels of `texture` */
    uint32_t background;   /* premultiplied */
    WbTexture texture;     /* premultiplied photo, maybe shrunk; owned */
    WbRaster raster;       /* owned */
    float *rest_x, *rest_y; /* the rest positions the kept rest pass was drawn
                               from ((grid+1)² each, owned), or NULL */
    bool rest_kept;
    WbTexture filled;      /* the rest pass's texture: `texture` with the mask
                              filled, the same size; px NULL = no fill */
    float *fill_mask;      /* copy of def.mask for set_image, or NULL */
    WbInpaintDef fill_def;
    WbEdgeMode edge;
    uint32_t edge_color;   /* premultiplied */
    float *ex, *ey, *eu, *ev; /* the apron's (grid+3)² lattice (owned), or NULL */
    uint32_t *ring;        /* WB_EDGE_COLOR: the ring's triangles (owned) */
    int n_ring;
} WbPhotoView;

/* Prepare a view.  WB_E_INPUT for a bad grid, size or sample count; WB_E_IO
 * when out of memory.  On failure *v needs no free. */
WbStatus wb_photo_view_init(WbPhotoView *v, const WbPhotoViewDef *def, WbError *err);

/* Draw one frame into `out` (def.width × def.height, caller-owned).  x, y:
 * current positions; rx, ry: rest positions; mask: per-vertex weights or
 * NULL; all (grid+1)² floats in shorter-edge units, read only.  The pool
 * may be NULL; the bytes do not depend on its size.  WB_E_IO when out of
 * memory.
 *
 * The view draws only what moved over what `out` holds from the last time
 * it was passed here (it remembers two images; see wb_raster_carry_over):
 * the caller leaves an image's pixels alone between draws, or calls
 * wb_raster_carry_over(&v->raster, true) after changing them or before
 * passing a new image. */
WbStatus wb_photo_view_draw(WbPhotoView *v, WbPool *pool, const float *x, const float *y,
                            const float *rx, const float *ry, const float *mask, WbImage *out,
                            WbError *err);

/* What the last wb_photo_view_draw changed in its image (wb_raster_damage):
 * the tiles it drew over what the image held, or everything. */
void wb_photo_view_damage(const WbPhotoView *v, WbDamage *d);

/* Replace the photo's pixels (a frame of an animated input; img the same
 * size as the view's photo, read only here): the texture (and the filled
 * one) is made again as at init, and the next draw draws everything.
 * WB_E_INPUT for another size, WB_E_IO when out of memory (the old texture
 * is then kept). */
WbStatus wb_photo_view_set_image(WbPhotoView *v, const WbImage *img, WbError *err);

void wb_photo_view_free(WbPhotoView *v);

/* Fill rx, ry ((grid+1)² each) with the rest lattice of a w×h photo in
 * shorter-edge units (see above). */
void wb_photo_view_rest(int grid, int img_w, int img_h, float *rx, float *ry);

#endif

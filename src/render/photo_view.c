#include "render/photo_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Shrink the texture when the photo is displayed below this scale. */
#define SHRINK_BELOW 0.75

void wb_photo_view_rest(int grid, int img_w, int img_h, float *rx, float *ry)
{
    double m = img_w < img_h ? img_w : img_h;
    double ex = img_w / m, ey = img_h / m;
    for (int j = 0; j <= grid; j++)
        for (int i = 0; i <= grid; i++) {
            size_t k = (size_t)j * (size_t)(grid + 1) + (size_t)i;
            rx[k] = (float)(ex * i / grid);
            ry[k] = (float)(ey * j / grid);
        }
}

/* A texture of img at the size of v->texture (shrunk the same way). */
static WbStatus texture_at_view_size(const WbPhotoView *v, const WbImage *img, WbTexture *out,
                                     WbError *err)
{
    WbTexture full, shrunk;
    WbStatus st = wb_texture_from_image(&full, img, err);
    if (st)
        return st;
    if (full.w != v->texture.w || full.h != v->texture.h) {
        st = wb_texture_downscale(&shrunk, &full, v->texture.w, v->texture.h, err);
        wb_texture_free(&full);
        if (st)
            return st;
        full = shrunk;
    }
    *out = full;
    return WB_OK;
}

/* The rest pass's texture from img: the photo with the mask filled, made
 * as `texture` is.  Replaces v->filled on success; nothing to do without
 * a fill. */
static WbStatus make_filled(WbPhotoView *v, const WbImage *img, WbError *err)
{
    if (!v->fill_mask)
        return WB_OK;
    WbImage im;
    WbTexture filled;
    WbStatus st = wb_inpaint(img, v->fill_mask, &v->fill_def, &im, err);
    if (st)
        return st;
    st = texture_at_view_size(v, &im, &filled, err);
    wb_image_free(&im);
    if (st)
        return st;
    wb_texture_free(&v->filled);
    v->filled = filled;
    return WB_OK;
}

/* Keep the mask and the fill, then make the filled texture. */
static WbStatus init_fill(WbPhotoView *v, const WbPhotoViewDef *def, WbError *err)
{
    if (!def->mask || !def->fill)
        return WB_OK;
    size_t bytes = (size_t)def->image->w * (size_t)def->image->h * sizeof *def->mask;
    v->fill_mask = malloc(bytes);
    if (!v->fill_mask)
        return wb_error_set(err, WB_E_IO, "out of memory keeping the photo's mask");
    memcpy(v->fill_mask, def->mask, bytes);
    v->fill_def = *def->fill;
    return make_filled(v, def->image, err);
}

/* The apron's lattice (and the ring's triangles for a colour). */
static WbStatus init_edge(WbPhotoView *v, const WbPhotoViewDef *def, WbError *err)
{
    v->edge = def->edge;
    v->edge_color = wb_rgba_premul(def->edge_color.r, def->edge_color.g, def->edge_color.b,
                                   def->edge_color.a);
    if (def->edge == WB_EDGE_NONE)
        return WB_OK;
    size_t n = (size_t)(def->grid + 3) * (size_t)(def->grid + 3);
    bool uv = def->edge != WB_EDGE_COLOR;
    v->ex = malloc(n * sizeof *v->ex);
    v->ey = malloc(n * sizeof *v->ey);
    if (uv) {
        v->eu = malloc(n * sizeof *v->eu);
        v->ev = malloc(n * sizeof *v->ev);
    } else {
        v->ring = malloc(24 * (size_t)(def->grid + 1) * sizeof *v->ring);
    }
    if (!v->ex || !v->ey || (uv ? !v->eu || !v->ev : !v->ring))
        return wb_error_set(err, WB_E_IO, "out of memory for the photo's edge");
    if (v->ring)
        v->n_ring = wb_photo_edge_ring(def->grid, v->ring);
    return WB_OK;
}

WbStatus wb_photo_view_init(WbPhotoView *v, const WbPhotoViewDef *def, WbError *err)
{
    memset(v, 0, sizeof *v);
    const WbImage *img = def->image;
    if (def->grid < 1 || def->grid > 4096)
        return wb_error_set(err, WB_E_INPUT, "photo grid %d is out of range (1..4096)", def->grid);
    if (img->w <= 0 || img->h <= 0)
        return wb_error_set(err, WB_E_INPUT, "the photo is empty (%dx%d)", img->w, img->h);
    WbStatus st = wb_raster_init(&v->raster, def->width, def->height, def->samples, err);
    if (st != WB_OK)
        return st;
    /* The view's texture never changes after this: unmoved parts of the
     * photo can be carried over from frame to frame. */
    wb_raster_carry_over(&v->raster, true);

    /* Display scale s in output pixels per photo pixel, centred. */
    double W = img->w, H = img->h, m = W < H ? W : H;
    double sx = def->width / W, sy = def->height / H;
    double s = def->fit == WB_FIT_COVER ? (sx > sy ? sx : sy) : (sx < sy ? sx : sy);
    v->to_px = (WbXform2){.sx = (float)(m * s), .sy = (float)(m * s),
                          .ox = (float)((def->width - W * s) / 2),
                          .oy = (float)((def->height - H * s) / 2)};

    WbTexture full;
    st = wb_texture_from_image(&full, img, err);
    if (st != WB_OK) {
        wb_raster_free(&v->raster);
        return st;
    }
    int tw = img->w, th = img->h;
    if (s < SHRINK_BELOW) {
        tw = (int)ceil(W * s);
        th = (int)ceil(H * s);
        tw = tw < 1 ? 1 : tw;
        th = th < 1 ? 1 : th;
        st = wb_texture_downscale(&v->texture, &full, tw, th, err);
        wb_texture_free(&full);
        if (st != WB_OK) {
            wb_raster_free(&v->raster);
            return st;
        }
    } else {
        v->texture = full;
    }
    v->to_texel = (WbXform2){.sx = (float)(m * tw / W), .sy = (float)(m * th / H)};
    v->grid = def->grid;
    v->img_w = img->w;
    v->img_h = img->h;
    v->background = def->transparent ? 0u
                                     : wb_rgba_premul(def->background.r, def->background.g,
                                                      def->background.b, def->background.a);
    st = init_fill(v, def, err);
    if (!st)
        st = init_edge(v, def, err);
    if (st)
        wb_photo_view_free(v);
    return st;
}

WbStatus wb_photo_view_draw(WbPhotoView *v, WbPool *pool, const float *x, const float *y,
                            const float *rx, const float *ry, const float *mask, WbImage *out,
                            WbError *err)
{
    int n = (v->grid + 1) * (v->grid + 1);
    WbMesh mesh = {
        .n_vertices = n,
        .x = mask ? rx : x,
        .y = mask ? ry : y,
        .to_px = v->to_px,
        .grid_cols = v->grid,
        .grid_rows = v->grid,
        .paint = WB_PAINT_TEXTURE,
        .texture = &v->texture,
        .u = rx,
        .v = ry,
        .to_texel = v->to_texel,
    };
    wb_raster_begin(&v->raster, v->background);
    if (!mask) {
        /* Unmasked: the photo path draws the grid alone, with its apron
         * for clamp and mirror; a coloured apron goes under it. */
        float m = (float)(v->img_w < v->img_h ? v->img_w : v->img_h);
        float ext_u = (float)v->img_w / m, ext_v = (float)v->img_h / m;
        if (v->eu) {
            wb_photo_edge_lattice(v->grid, ext_u, ext_v, v->edge, x, y, rx, ry, v->ex, v->ey,
                                  v->eu, v->ev);
            mesh.n_vertices = (v->grid + 3) * (v->grid + 3);
            mesh.grid_cols = mesh.grid_rows = v->grid + 2;
            mesh.x = v->ex;
            mesh.y = v->ey;
            mesh.u = v->eu;
            mesh.v = v->ev;
        } else if (v->ring) {
            wb_photo_edge_lattice(v->grid, ext_u, ext_v, v->edge, x, y, rx, ry, v->ex, v->ey,
                                  NULL, NULL);
            wb_raster_mesh(&v->raster, &(WbMesh){.n_vertices = (v->grid + 3) * (v->grid + 3),
                                                 .x = v->ex,
                                                 .y = v->ey,
                                                 .to_px = v->to_px,
                                                 .indices = v->ring,
                                                 .n_triangles = v->n_ring,
                                                 .paint = WB_PAINT_COLOR,
                                                 .color = v->edge_color});
        }
        wb_raster_photo_grid(&v->raster, &mesh);
        return wb_raster_end(&v->raster, pool, out, err);
    }
    if (v->filled.px)
        mesh.texture = &v->filled;
    wb_raster_mesh(&v->raster, &mesh);
    mesh.texture = &v->texture;
    /* The rest pass may come from the previous masked frame's samples
     * when the rest positions are unchanged (a byte compare: the pass
     * reads nothing else that can change). */
    size_t bytes = (size_t)n * sizeof *rx;
    if (!v->rest_x)
        v->rest_x = malloc(bytes);
    if (!v->rest_y)
        v->rest_y = malloc(bytes);
    if (v->rest_x && v->rest_y) {
        bool same = v->rest_kept && memcmp(v->rest_x, rx, bytes) == 0 &&
                    memcmp(v->rest_y, ry, bytes) == 0;
        if (!same) {
            memcpy(v->rest_x, rx, bytes);
            memcpy(v->rest_y, ry, bytes);
            v->rest_kept = true;
        }
        wb_raster_keep_first(&v->raster, same);
    }
    mesh.x = x;
    mesh.y = y;
    mesh.alpha = mask;
    wb_raster_mesh(&v->raster, &mesh);
    return wb_raster_end(&v->raster, pool, out, err);
}

void wb_photo_view_damage(const WbPhotoView *v, WbDamage *d)
{
    wb_raster_damage(&v->raster, d);
}

void wb_photo_view_free(WbPhotoView *v)
{
    if (!v)
        return;
    wb_texture_free(&v->texture);
    wb_texture_free(&v->filled);
    free(v->fill_mask);
    v->fill_mask = NULL;
    wb_raster_free(&v->raster);
    free(v->rest_x);
    free(v->rest_y);
    v->rest_x = v->rest_y = NULL;
    free(v->ex);
    free(v->ey);
    free(v->eu);
    free(v->ev);
    free(v->ring);
    v->ex = v->ey = v->eu = v->ev = NULL;
    v->ring = NULL;
    v->rest_kept = false;
}

WbStatus wb_photo_view_set_image(WbPhotoView *v, const WbImage *img, WbError *err)
{
    if (img->w != v->img_w || img->h != v->img_h)
        return wb_error_set(err, WB_E_INPUT, "a new photo of %dx%d for a view of %dx%d", img->w,
                            img->h, v->img_w, v->img_h);
    WbTexture full;
    WbStatus st = texture_at_view_size(v, img, &full, err);
    if (st)
        return st;
    st = make_filled(v, img, err);
    if (st) {
        wb_texture_free(&full);
        return st;
    }
    wb_texture_free(&v->texture);
    v->texture = full;
    /* Nothing drawn from the old texels may be reused. */
    wb_raster_carry_over(&v->raster, true);
    v->rest_kept = false;
    return WB_OK;
}

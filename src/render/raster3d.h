/* raster3d.h — the depth-buffered, perspective-correct, lit 3D path of the
 * rasterizer (SPEC §5), used by the jiggle 3D views and the cloth scenes.
 *
 *     WbRaster3 *r;  wb_raster3_create(&r, w, h, samples, &err);     once
 *     wb_raster3_begin(r, &camera, &lighting, background);           per frame
 *     wb_raster3_mesh(r, &mesh);  ...                                 any number
 *     wb_raster3_end(r, pool, &image, &err);                          draws, resolves
 *     wb_raster3_destroy(r);
 *
 * Like raster.h, draw calls only RECORD; wb_raster3_end() runs the vertex,
 * clip and light stages, then draws fixed bands of rows, each with its own
 * colour and depth samples, so the bytes do not depend on the threads.
 * Coverage, fill rule, sample pattern and resolve are the 2D path's
 * (raster_core.h): a 3D view and a 2D overlay meet without a seam.
 *
 * Draw order: opaque meshes (depth-tested "less" and written: the nearest
 * wins whatever the order), then translucent ones (opacity < 1) in
 * submission order, tested but not writing depth, then on_top overlays
 * (no depth test or write); the last two blend "over".
 *
 * Conventions: world and camera as camera.h; pixels as raster.h (y DOWN);
 * NDC (x, y) maps to ((x+1)/2·w, (1−y)/2·h).  Triangles are clipped
 * against the near plane and a ±2^20 px guard band, never the far plane
 * (depth is clamped).  Depth is 1/w per sample; a fragment passes when
 * strictly nearer (the first of coplanar duplicates wins).  FRONT faces
 * are counter-clockwise on screen (mesh3.h's winding); cull_back drops
 * back faces, a two_sided material lights them with the flipped normal
 * and back_tint.
 *
 * Shading: Gouraud, lit once per vertex (hemisphere ambient, Lambert,
 * Blinn–Phong from the key and fill lights, fabric sheen); colour, uv and
 * lighting interpolated perspective-correctly and evaluated once per
 * pixel at its centre.  unlit materials paint the base colour as is;
 * textures follow texture.h.  The model's details: raster3d.c.
 *
 * Errors: meshes with invalid data (index ≥ n_vertices, NaN positions)
 * lose the offending triangles, never crash; running out of memory while
 * recording makes wb_raster3_end return WB_E_IO.
 */
#ifndef WB_RASTER3D_H
#define WB_RASTER3D_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/image.h"
#include "core/pool.h"
#include "render/camera.h"
#include "render/raster.h"
#include "render/texture.h"

/* A directional light. */
typedef struct WbLight {
    float dir[3];      /* direction TOWARD the light, world (normalised by the callee;
                          zero = off) */
    float color[3];    /* intensity per channel, ≥ 0 (1 = full) */
} WbLight;

typedef struct WbLighting {
    WbLight key, fill;         /* two directional lights (a zero colour switches one off) */
    float sky[3], ground[3];   /* hemisphere ambient: normal·up blends ground → sky */
} WbLighting;

/* A pleasant studio setup: warm key from the upper left front, cool weak
 * fill from the right, soft sky/ground ambient.  Directions are in WORLD
 * space (+y up), so the lighting stays put as the camera orbits. */
WbLighting wb_lighting_default(void);

typedef struct WbMaterial {
    float diffuse;          /* Lambert weight, 0..1 */
    float specular;         /* Blinn–Phong weight, 0..1 (white highlight × light colour) */
    float shininess;        /* Blinn–Phong exponent, ≥ 1 */
    float sheen;            /* grazing-angle term weight (fabric): sheen·(1 − |n·v|)^5,
                               tinted by sheen_color */
    float sheen_color[3];
    bool two_sided;         /* back faces are lit with the flipped normal and tinted by
                               back_tint (cloth); else back faces are lit as front */
    float back_tint[3];     /* multiplies the base colour of back faces (two_sided only) */
    bool unlit;             /* paint as is, no lighting (heatmaps, markers, grid lines) */
} WbMaterial;

/* diffuse 0.85, specular 0.15, shininess 32, no sheen (sheen_color white),
 * one-sided (back_tint white), lit. */
WbMaterial wb_material_default(void);

/* A triangle mesh in world space.  All arrays are borrowed and must stay
 * valid and unchanged until wb_raster3_end() returns. */
typedef struct WbMesh3 {
    int n_vertices;
    const float *pos;           /* 3 per vertex, world units */
    const float *normal;        /* 3 per vertex (need not be unit); NULL = facet normals
                                   (flat shading, each triangle lit by its own normal) */
    const uint32_t *indices;    /* 3 per triangle, each < n_vertices */
    int n_triangles;
    WbPaint paint;              /* as raster.h: COLOR / VERTEX_COLOR / TEXTURE */
    uint32_t color;             /* WB_PAINT_COLOR: premultiplied (wb_rgba_premul) */
    const float *rgba;          /* WB_PAINT_VERTEX_COLOR: 4 per vertex, premultiplied, [0,1] */
    const WbTexture *texture;   /* WB_PAINT_TEXTURE */
    const float *uv;            /* 2 per vertex, mapped to texels by to_texel */
    WbXform2 to_texel;
    WbMaterial material;
    float opacity;              /* 1 = opaque; < 1: blended "over" after all opaque meshes
                                   in submission order, depth-tested, no depth write;
                                   ≤ 0 draws nothing */
    bool cull_back;             /* skip back-facing triangles (closed shapes) */
    bool on_top;                /* overlay: drawn last, no depth test, no depth write
                                   (bone markers, axes) */
} WbMesh3;

/* The renderer: target size, recorded meshes and scratch kept between
 * frames (so steady-state frames do not allocate).  Opaque; owned by the
 * caller through create/destroy. */
typedef struct WbRaster3 WbRaster3;

/* A w×h target with `samples` samples per pixel (1, 4, 8 or 16).
 * WB_E_INPUT for a bad size or sample count, WB_E_IO when out of memory
 * (*out is then NULL). */
WbStatus wb_raster3_create(WbRaster3 **out, int w, int h, int samples, WbError *err);
/* NULL-safe. */
void wb_raster3_destroy(WbRaster3 *r);

/* Start a frame: forget recorded meshes; set the camera (copied), the
 * lighting (copied; NULL = wb_lighting_default()) and the background
 * (premultiplied, 0 = transparent).  The camera's aspect is w/h. */
void wb_raster3_begin(WbRaster3 *r, const WbCamera *cam, const WbLighting *light,
                      uint32_t background);

/* Record a mesh (the struct is copied; its arrays are borrowed until
 * wb_raster3_end() returns). */
void wb_raster3_mesh(WbRaster3 *r, const WbMesh3 *m);

/* Draw everything recorded since wb_raster3_begin() into `out` (w×h
 * straight RGBA8, caller-owned, like wb_raster_end) using the pool's
 * threads (NULL = this thread): bit-identical for any pool size.  WB_E_IO
 * when memory ran out (out is then unspecified).  The recording is kept:
 * calling again draws the same frame. */
WbStatus wb_raster3_end(WbRaster3 *r, WbPool *pool, WbImage *out, WbError *err);

/* A world point → pixel coordinates (x right, y down, pixel centres at
 * +0.5) and its view depth (world units along the viewing direction, = w);
 * false when it is not in front of the near plane (px and depth are then
 * unspecified).  Uses the camera of the last wb_raster3_begin().  For
 * 2D-looking overlays drawn as on_top meshes, or for tests. */
bool wb_raster3_project(const WbRaster3 *r, const double p[3], float px[2], float *depth);

#endif

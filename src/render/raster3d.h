/* raster3d.h — the depth-buffered, perspective-correct, lit 3D path of the
 * rasterizer (SPEC §5).  Used by the jiggle 3D views and the cloth scenes.
 *
 * ## How a frame is drawn
 *
 *     WbRaster3 *r;  wb_raster3_create(&r, w, h, samples, &err);     once
 *     wb_raster3_begin(r, &camera, &lighting, background);           per frame
 *     wb_raster3_mesh(r, &mesh);  ...                                 any number
 *     wb_raster3_end(r, pool, &image, &err);                          draws, resolves
 *     wb_raster3_destroy(r);
 *
 * Like raster.h, draw calls only RECORD; wb_raster3_end() runs a vertex
 * stage (once per vertex: world → clip by the camera, per-vertex lighting),
 * then cuts the frame into bands of 16 rows (fixed), each with its
 * own colour and depth samples, and draws every recorded mesh into every
 * band it touches.  Bands are independent, so the bytes do not depend on
 * the number of threads.
 *
 * ## Draw order
 *
 *   1. Opaque meshes (opacity ≥ 1 and not on_top), in submission order,
 *      depth-tested (less) and depth-writing: the nearest surface wins
 *      whatever the submission order.
 *   2. Translucent meshes (opacity < 1), in SUBMISSION order (not sorted),
 *      depth-tested against the opaque surfaces but not writing depth,
 *      blended "over".
 *   3. on_top meshes, in submission order, with no depth test and no depth
 *      write (overlays: bone markers, axes), blended "over" (opacity applies).
 *
 * ## Conventions
 *
 * World and camera as camera.h.  Pixels as raster.h: x right, y DOWN, pixel
 * (i,j) covers [i,i+1)×[j,j+1), centre at (i+0.5, j+0.5); NDC (x, y) maps
 * to ((x+1)/2·w, (1−y)/2·h).  Projected vertices keep 8 bits of sub-pixel
 * precision (never snapped to whole pixels).
 *
 * Clipping: triangles are clipped against the near plane in homogeneous
 * space (z_clip ≥ −w_clip), so geometry passing beside or behind the camera
 * (a floor under it) is exact and finite.  Nothing is clipped against the
 * far plane (depth is clamped there instead, so far geometry still draws).
 * Against x/y a guard band of ±2^20 px keeps the fixed-point edge functions
 * exact; triangles reaching past it are clipped against it too.
 *
 * Coverage is raster.h's: the same sample patterns (wb_raster_sample_offset),
 * exact 64-bit fixed-point edge functions and the top-left fill rule, so
 * triangles sharing an edge cover each sample exactly once (no seams, no
 * double blending).  Depth is one float per SAMPLE: 1/w (w = view depth),
 * which is linear in screen space, interpolated from the triangle's plane
 * at the sample; a fragment passes when it is strictly nearer (larger 1/w:
 * the "less" test on −1/w, so among coplanar duplicates the first drawn
 * wins).  1/w keeps float's relative precision at every distance, better
 * than z_ndc would at the far end.
 *
 * Winding and facing: a triangle is FRONT-facing when its vertices appear
 * counter-clockwise on screen (as mesh3.h winds closed shapes seen from
 * outside).  cull_back drops back-facing triangles.  Otherwise back faces
 * are drawn: with a two_sided material they are lit with the flipped
 * normal and their base colour multiplied by back_tint (cloth: the inside
 * of a sheet is lit like a surface of its own); else they get the same
 * colours as the front (lit by the normals as given).
 *
 * Shading: Gouraud.  The vertex stage lights each vertex once per frame (in
 * straight colour, then premultiplies): hemisphere ambient (ground → sky
 * blended by (n·up + 1)/2), Lambert diffuse and Blinn–Phong specular from
 * the key and fill lights (half vector with the direction to the eye),
 * fabric sheen sheen·(1 − |n·v|)^5 · sheen_color.  Base colour comes from
 * the paint (colour, vertex colour or texture); the lighting factor is
 * applied to it per pixel, specular and sheen added on top (scaled by the
 * base alpha, so a transparent texel stays transparent).  Colour, uv and
 * lighting are interpolated PERSPECTIVE-CORRECTLY (1/w planes) and
 * evaluated once per pixel per triangle at the pixel centre, like raster.h
 * (attributes extrapolated from the triangle's plane when the centre lies
 * just outside it).  unlit materials paint the base colour as is.
 * Textures follow texture.h (uv mapped to texels by to_texel; texel centres
 * at +0.5, bilinear, clamp to edge, premultiplied).
 *
 * Colour: samples hold premultiplied RGBA8; the resolve is raster.h's
 * (straight-alpha RGBA8 out, round to nearest, a transparent background
 * survives with correct colours at antialiased edges).
 *
 * Errors: wb_raster3_create returns WB_E_INPUT for a bad size or sample
 * count and WB_E_IO when out of memory.  Recording (wb_raster3_mesh) never
 * fails visibly: running out of memory there, or in the vertex stage,
 * makes wb_raster3_end return WB_E_IO.  Meshes with invalid data (index ≥
 * n_vertices, NaN positions) lose the offending triangles, never crash.
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

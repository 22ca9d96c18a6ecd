/* mesh3.h — building indexed triangle meshes for the 3D views.
 *
 * A WbMeshBuf is a growable, caller-owned set of arrays: positions,
 * normals, texture coordinates and triangle indices.  Generators APPEND to
 * it, so several shapes can make one mesh (their indices are offset by the
 * vertices already present).  A WbMeshBuf maps directly onto a WbMesh3
 * (raster3d.h): pos → pos, normal → normal, uv → uv, idx → indices.
 *
 * Conventions:
 *   - World units; right-handed, +y up.
 *   - Triangles are wound COUNTER-CLOCKWISE seen from outside (the side the
 *     normals point to), so back-face culling keeps the outside.
 *   - Normals are unit length and point outward (analytic where the shape
 *     has a closed form, else area-weighted).
 *   - Closed shapes (sphere, ellipsoid, capsule, torus, lathe with caps,
 *     box) are watertight by index: every edge is shared by exactly two
 *     triangles, seams and poles included (vertices along a uv seam or at a
 *     pole are shared, not duplicated), so the rasterizer draws no cracks.
 *     The price is that uv is continuous except across the seam, where a
 *     triangle interpolates u from near 1 back toward 0; the views that
 *     texture closed shapes use textures that are smooth there.
 *   - uv is the generator's natural parameterisation in [0, 1] (u around,
 *     v along: v = 0 at the bottom / −y end, v = 1 at the top).
 *
 * Errors: WB_E_INPUT for a bad tessellation count or size (the buffer is
 * then unchanged); WB_E_IO when memory runs out (the buffer keeps what it
 * had before the call).
 */
#ifndef WB_MESH3_H
#define WB_MESH3_H

#include <stdint.h>

#include "core/error.h"

typedef struct WbMeshBuf {
    float *pos;        /* 3 per vertex */
    float *normal;     /* 3 per vertex, unit */
    float *uv;         /* 2 per vertex (the generator's natural parameterisation, [0,1]) */
    uint32_t *idx;     /* 3 per triangle, counter-clockwise seen from outside */
    int n_vertices, n_triangles;
    int cap_vertices, cap_triangles;
} WbMeshBuf;
/* A zero-initialised WbMeshBuf ({0}) is an empty, valid buffer. */

/* Release the arrays and zero the struct; NULL-safe. */
void wb_meshbuf_free(WbMeshBuf *b);
/* Forget every vertex and triangle but keep the capacity. */
void wb_meshbuf_clear(WbMeshBuf *b);

/* UV sphere: `slices` ≥ 3 segments around y, `stacks` ≥ 2 from pole to
 * pole; slices·(stacks−1) + 2 vertices, 2·slices·(stacks−1) triangles.
 * radius > 0. */
WbStatus wb_mesh3_sphere(WbMeshBuf *b, const float c[3], float radius, int slices, int stacks,
                         WbError *err);
/* The sphere scaled by radii (each > 0) along x, y, z; normals are the
 * ellipsoid's true normals (∝ (x/a², y/b², z/c²)). */
WbStatus wb_mesh3_ellipsoid(WbMeshBuf *b, const float c[3], const float radii[3], int slices,
                            int stacks, WbError *err);
/* A cylinder of `radius` from y = −half_length to +half_length (relative to
 * c) closed by hemispheres; total height 2·(half_length + radius).
 * half_length ≥ 0 (0 gives a sphere), slices ≥ 3, stacks ≥ 1 rings per
 * hemisphere (stacks = number of latitude bands in each cap). */
WbStatus wb_mesh3_capsule(WbMeshBuf *b, const float c[3], float radius, float half_length,
                          int slices, int stacks, WbError *err);
/* Torus around the y axis: the tube's centre circle has radius `major` in
 * the xz plane through c, the tube radius is `minor` (0 < minor < major).
 * `slices` ≥ 3 segments around y, `rings` ≥ 3 segments around the tube;
 * slices·rings vertices, 2·slices·rings triangles. */
WbStatus wb_mesh3_torus(WbMeshBuf *b, const float c[3], float major, float minor, int slices,
                        int rings, WbError *err);
/* Surface of revolution about the +y axis through c: n_profile ≥ 2 points
 * (radius[i] ≥ 0, y[i]) listed bottom to top, `slices` ≥ 3.  An end with
 * radius > 0 is closed by a flat cap (a fan around a centre vertex that
 * shares the end ring, so the shape stays watertight by index); an end
 * point with radius 0 is a single pole vertex (interior points need
 * radius > 0).  Normals are area-weighted over the whole surface: smooth
 * along the side, exactly ∓y at cap centres, blended at a cap's rim. */
WbStatus wb_mesh3_lathe(WbMeshBuf *b, const float c[3], const float *radius, const float *y,
                        int n_profile, int slices, WbError *err);
/* Axis-aligned box from lo to hi (each hi[k] > lo[k]): 24 vertices (flat
 * normals per face), 12 triangles; closed by position (face corners are
 * duplicated for the normals, so by INDEX each face is its own patch). */
WbStatus wb_mesh3_box(WbMeshBuf *b, const float lo[3], const float hi[3], WbError *err);
/* A flat grid in the plane y = c[1], size sx × sz (> 0) centred at c,
 * nx × nz ≥ 1 cells, normal +y (counter-clockwise seen from above).
 * Vertex (i, k) (i along x, k along z) is at index k·(nx+1) + i with
 * uv = (i/nx, k/nz). */
WbStatus wb_mesh3_plane(WbMeshBuf *b, const float c[3], float sx, float sz, int nx, int nz,
                        WbError *err);
/* Area-weighted vertex normals of any indexed mesh (counter-clockwise =
 * front): each vertex gets the normalised sum of its triangles' cross
 * products (summed in double); a vertex on no (non-degenerate) triangle
 * gets (0, 1, 0).  `normal` (3·n_vertices) must not alias pos.  WB_E_IO
 * when the sums' scratch cannot be allocated (normal then unchanged). */
WbStatus wb_mesh3_normals(const float *pos, int n_vertices, const uint32_t *idx,
                          int n_triangles, float *normal, WbError *err);

/* The same normals with the caller's scratch `acc` (3·n_vertices doubles)
 * for the sums instead of an allocation: for views that recompute a
 * deforming mesh's normals every frame.  Pure, cannot fail. */
void wb_mesh3_normals_into(const float *pos, int n_vertices, const uint32_t *idx,
                           int n_triangles, float *normal, double *acc);

#endif

/* photo_edge.h — what shows beyond the photo's border (photo.edge).
 *
 * When the mesh's border is pulled inwards, the frame between the border
 * and where the photo lay at rest would show the output's background (black
 * wedges).  The view closes that gap with an APRON: one ring of cells
 * around the photo's grid, giving a (grid+3)² lattice whose inner
 * (grid+1)² vertices are the photo's.  A ring vertex next to border vertex
 * b takes, along each axis it is outside the photo on, b's rest coordinate
 * while b is pulled inwards of that edge and b's own otherwise, and b's own
 * coordinate along the edge; so the apron is flat (draws nothing) at rest
 * and where the border moved outwards, and spans exactly the gap where it
 * moved in, its cells' sides square to the rest edge.  Texture coordinates:
 *   clamp   — b's own: each border pixel runs straight out to the edge;
 *   mirror  — b's continued past the border as if the photo went on, then
 *             reflected at the border: the photo is mirrored;
 * so the apron is drawn with the photo's texture as part of the one grid
 * (the photo path of raster.h).  For a colour the view draws the ring flat;
 * for none it draws no apron.
 */
#ifndef WB_PHOTO_EDGE_H
#define WB_PHOTO_EDGE_H

#include <stdint.h>

typedef enum WbEdgeMode {
    WB_EDGE_CLAMP,
    WB_EDGE_MIRROR,
    WB_EDGE_NONE,   /* no apron: the background shows */
    WB_EDGE_COLOR   /* the apron in one colour */
} WbEdgeMode;

/* Fill the (grid+3)² lattice ex, ey (positions) and, unless eu is NULL,
 * eu, ev (texture coordinates) from the photo's (grid+1)² current positions
 * x, y and rest positions rx, ry (its texture coordinates), all in
 * shorter-edge units; the photo spans [0, ext_u] × [0, ext_v] in texture
 * coordinates.  Vertex (I, J) of the lattice is at J·(grid+3) + I and is
 * photo vertex (I-1, J-1) inside the ring. */
void wb_photo_edge_lattice(int grid, float ext_u, float ext_v, WbEdgeMode mode, const float *x,
                           const float *y, const float *rx, const float *ry, float *ex, float *ey,
                           float *eu, float *ev);

/* The ring's triangles as indices into the lattice, in the grid's split
 * (raster.h): 8·(grid+1) triangles, 24·(grid+1) indices written to idx. */
int wb_photo_edge_ring(int grid, uint32_t *idx);

#endif

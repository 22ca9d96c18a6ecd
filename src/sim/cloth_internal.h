/* cloth_internal.h — what the cloth's files share (internal to src/sim/cloth*.c).
 *
 * The solver is one module in several files, each owning a part of the
 * substep (cloth.h lists the stages):
 *   cloth.c          the API, the substep (prediction, stiffness) and setup
 *   cloth_links.c    distance links: stretch, shear, skip-one bend (sweeps)
 *   cloth_dihedral.c dihedral bending (quads, colours, sweep)
 *   cloth_bodies.c   spheres, boxes and floor: push-out and friction
 *   cloth_self.c     cloth–cloth repulsion through a spatial hash
 *   cloth_stretch.c  the hard stretch limit and the ordered settling pass
 *   cloth_normals.c  vertex normals
 *   cloth_*_kernel.inc the vector kernels of all of these, built once per
 *                    lane width by cloth_*_wN.c (cloth_lanes.h, cloth_kernels.h)
 * The scalar code and the kernels do the same IEEE operations in the same
 * order, so any lane width gives the same bytes.  Helpers that the hot
 * loops of two files call are static inline here.
 */
#ifndef WB_CLOTH_INTERNAL_H
#define WB_CLOTH_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/cloth.h"

#define LINK_EPS2 1e-14f /* squared length below which a link has no direction */

/* How one sweep projects a link family.
 *   PBD:   k = stiffness, at = 0          Δλ = −k·C / (wa + wb)
 *   XPBD:  k = 1, at = α/dt²              Δλ = (−C − at·λ) / (wa + wb + at)
 *   clamp: k = 1, at = 0, unilateral      only links longer than rest act */
typedef struct LinkParams {
    float k, at, rest;
    int unilateral;
    int ftl; /* follow the leader: the end nearer a pin (s->pin_depth) does
                not move; ends equally far split by inverse mass */
} LinkParams;

/* The plain projection (PBD, no multiplier, no limit): the fast kernels. */
static inline bool plain_pbd(const float *lam, const LinkParams *p)
{
    return !lam && !p->unilateral && !p->ftl && p->at == 0.0f;
}

/* The link families, in the order of WbClothState.rest and .lambda:
 * horizontal, vertical, the two diagonals, horizontal and vertical bend. */
enum { FAM_H, FAM_V, FAM_D1, FAM_D2, FAM_BH, FAM_BV };

/* One substep's constraint parameters (made by stiffness() in cloth.c). */
typedef struct Stiffness {
    LinkParams stretch, shear, bend;
    float dih_k, dih_at;
    bool xpbd, bend_on;
} Stiffness;

/* The three kinds of inner edge (build_dihedral), as the grid places their
 * quads around (i, j):
 *   D  the cell's diagonal    e0 (i,j)    e1 (i+1,j+1)  w0 (i+1,j)    w1 (i,j+1)
 *   H  an edge along a row    e0 (i,j)    e1 (i+1,j)    w0 (i+1,j+1)  w1 (i,j−1)
 *   V  an edge along a column e0 (i,j+1)  e1 (i,j)      w0 (i+1,j+1)  w1 (i−1,j)
 * A colour is one kind at one parity of i and of j: two quads of a colour
 * share no particle (they are two columns or two rows apart, and where a
 * row-edge quad reaches into the next quad's rows it does so in the other
 * parity of column).  So the quads of a colour in one row sit at every
 * second column: W of them read 2W consecutive particles of each row they
 * touch, the even ones for one point of the quad and the odd ones for
 * another — "segments", loaded and stored as two vectors each, split and
 * merged by the stride-2 shuffles, instead of gathered particle by
 * particle. */
enum { DIH_D, DIH_H, DIH_V, DIH_KINDS };
#define DIH_COLOURS (4 * DIH_KINDS)
_Static_assert(DIH_COLOURS == WB_CLOTH_DIH_COLOURS, "the state's colour table");
/* The quads of a kind: i in [imin, imax], j in [jmin, jmax]. */
static inline void dih_kind_range(const WbClothState *s, int kind, int *imin, int *imax, int *jmin,
                                  int *jmax)
{
    *imin = kind == DIH_V ? 1 : 0;
    *imax = s->nx - 2;
    *jmin = kind == DIH_H ? 1 : 0;
    *jmax = s->ny - 2;
}

/* First value >= lo with the parity par (0 or 1). */
static inline int first_of_parity(int lo, int par)
{
    return lo + ((par - lo) % 2 + 2) % 2;
}

/* One horizontal link (a, a + 1) of the stretch limit, with the follow-the-
 * leader weights: the sequential part of the limit, kept tight because most
 * links pass the length test and cost only that (the row kernels and the
 * scalar tails both call it). */
static inline void clamp_link(WbClothState *s, int a, float lim, float lim2)
{
    float *x = s->x, *y = s->y, *z = s->z;
    const float *w = s->w, *dep = s->pin_depth;
    int b = a + 1;
    float dx = x[b] - x[a], dy = y[b] - y[a], dz = z[b] - z[a];
    float d2 = dx * dx + dy * dy + dz * dz;
    if (!(d2 > lim2))
        return;
    float wa = dep[a] < dep[b] ? 0.0f : w[a], wb = dep[b] < dep[a] ? 0.0f : w[b];
    float ws = wa + wb;
    if (!(ws > 0.0f) || !(wa >= 0.0f && wb >= 0.0f))
        return;
    float d = sqrtf(d2);
    float sg = -(d - lim) / (ws * d);
    x[a] -= wa * sg * dx;
    y[a] -= wa * sg * dy;
    z[a] -= wa * sg * dz;
    x[b] += wb * sg * dx;
    y[b] += wb * sg * dy;
    z[b] += wb * sg * dz;
}

/* ---- cloth_links.c: one sweep of a link family (rev: the plain PBD row
 * families go from the last link back, in alternate iterations) */
void wb_cloth_links_stretch(WbClothState *s, const Stiffness *st, int rev);
void wb_cloth_links_shear(WbClothState *s, const Stiffness *st, int rev);
void wb_cloth_links_bend(WbClothState *s, const Stiffness *st, int rev); /* skip-one */
/* links a = a0 .. a0+count−1 to a + boff, all independent (one row's worth) */
void wb_cloth_links_contig(WbClothState *s, int a0, int boff, int count, float *lam,
                           const LinkParams *p);

/* ---- cloth_dihedral.c */
/* The inner edges' quads, colour by colour, and their rest angles. */
void wb_cloth_dihedral_build(WbClothState *s);
void wb_cloth_dihedral_sweep(WbClothState *s, float k, float at, bool xpbd);

/* ---- cloth_bodies.c */
/* The spheres, boxes and sphere buckets of def; false when memory runs out. */
bool wb_cloth_bodies_build(WbClothState *s, const WbClothDef *def);
/* push every free particle out of the bodies (no friction) */
void wb_cloth_bodies_push(WbClothState *s, const WbClothDef *def);
/* the final body pass with contact friction, then the floor's */
void wb_cloth_bodies_friction(WbClothState *s, const WbClothDef *def, float dt);
void wb_cloth_bodies_floor(WbClothState *s, const WbClothDef *def, float dt);
/* particle p within margin + skin of a body sphere (or inside one) */
int wb_cloth_bodies_touch(const WbClothState *s, int p, float margin, float skin);

/* ---- cloth_self.c */
void wb_cloth_self_collide(WbClothState *s, const WbClothDef *def);

/* ---- cloth_stretch.c */
void wb_cloth_stretch_limit(WbClothState *s, const WbClothDef *def, float ratio);
/* s->pin_depth from the pins (init and whenever pins change, never in the step) */
void wb_cloth_pin_depth_update(WbClothState *s);
/* move free particle p into the balls of radius lim[k] around its n settled
 * neighbours nb[k]; returns 1 when it moved */
int wb_cloth_settle_with(WbClothState *s, int p, const int *nb, const float *lim, int n);

#endif

/* cloth_dihedral.c — dihedral bending: the angle between the two triangles
 * at each inner edge of the triangulation is held at its rest value.
 *
 * The constraint C = θ − θ_rest of a quad (edge e0-e1, wings w0, w1) moves
 * all four particles along ∂θ/∂x (Bridson, Marino & Fedkiw 2003; the maths
 * is above the kernel in cloth_dihedral_kernel.inc).  The quads come in 12
 * colours (3 kinds of edge × 2 parities of i × 2 of j, see cloth_internal.h)
 * whose quads share no particle, so a colour is swept W quads at a time and
 * the result is the sequential pass over the stored order, for any W.
 */
#include "sim/cloth_kernels.h"

/* Inner edges of the triangulation (see wb_cloth_normals), each as
 * {edge end 0, edge end 1, wing 0, wing 1} with the wings ordered so the flat
 * cloth has angle 0, stored colour by colour (see DIH_SEGS: kind, then
 * parity of j, then parity of i), row by row and column by column within a
 * colour — the order the sweep takes them in.  Returns the count. */
static int build_dihedral(WbClothState *s)
{
    const int nx = s->nx;
    int n = 0;
    for (int col = 0; col < DIH_COLOURS; col++) {
        const int kind = col / 4;
        int imin, imax, jmin, jmax;
        dih_kind_range(s, kind, &imin, &imax, &jmin, &jmax);
        s->dih_colour[col] = n;
        for (int j = first_of_parity(jmin, col / 2 % 2); j <= jmax; j += 2) {
            for (int i = first_of_parity(imin, col % 2); i <= imax; i += 2) {
                int a = j * nx + i, b = a + 1, c = a + nx, d = c + 1;
                int32_t *q = s->dih + 4 * n++;
                switch (kind) {
                case DIH_D: q[0] = a, q[1] = d, q[2] = b, q[3] = c; break;
                case DIH_H: q[0] = a, q[1] = b, q[2] = d, q[3] = a - nx; break;
                default: q[0] = c, q[1] = a, q[2] = d, q[3] = a - 1; break;
                }
            }
        }
    }
    s->dih_colour[DIH_COLOURS] = n;
    s->n_dih_colours = DIH_COLOURS;
    return n;
}

void wb_cloth_dihedral_build(WbClothState *s)
{
    s->n_dih = build_dihedral(s);
    for (int c = 0; c < s->n_dih; c++) {
        float theta = 0.0f, g[4][3];
        if (wb_cloth_v4_dihedral1(s, s->dih + 4 * c, &theta, g))
            s->dih_rest[c] = theta;
    }
}

void wb_cloth_dihedral_sweep(WbClothState *s, float k, float at, bool xpbd)
{
    for (int col = 0; col < s->n_dih_colours; col++) {
#if WB_SIMD_WIDE
        if (s->lanes == 16) {
            wb_cloth_v16_dih_colour(s, col, k, at, xpbd);
            continue;
        }
        if (s->lanes >= 8) {
            wb_cloth_v8_dih_colour(s, col, k, at, xpbd);
            continue;
        }
#endif
        wb_cloth_v4_dih_colour(s, col, k, at, xpbd);
    }
}

int wb_cloth_dihedral_eval(const WbClothState *s, const int32_t q[4], float *theta,
                           float grad[4][3])
{
    return wb_cloth_v4_dihedral1(s, q, theta, grad);
}

/* cloth_normals.c — area-weighted vertex normals, once per frame.
 *
 * Each triangle's face normal is worked out once (W quads at a time, into
 * two rows of scratch, WbClothState.face_rows) and a vertex adds its six
 * faces in one fixed order, so the inner vertices from the scratch rows and
 * the border ones from vertex_normal() are the same floats.
 */
#include "sim/cloth_kernels.h"

/* Face normal (p2 − p1) × (p3 − p1) of one triangle; 0 when a corner is
 * inert (a triangle with an inert corner is not cloth). */
static int face_normal(const WbClothState *s, int p1, int p2, int p3, float f[3])
{
    if (s->w[p1] < 0.0f || s->w[p2] < 0.0f || s->w[p3] < 0.0f)
        return 0;
    const float *X = s->x, *Y = s->y, *Z = s->z;
    float ux = X[p2] - X[p1], uy = Y[p2] - Y[p1], uz = Z[p2] - Z[p1];
    float vx = X[p3] - X[p1], vy = Y[p3] - Y[p1], vz = Z[p3] - Z[p1];
    f[0] = uy * vz - uz * vy;
    f[1] = uz * vx - ux * vz;
    f[2] = ux * vy - uy * vx;
    return 1;
}

/* The unnormalized normal of vertex (i, j): its triangles' face normals
 * summed from 0 in the order a sweep over the quads (row by row, triangle
 * (a, b, d) before (a, d, c)) meets them — quad (i−1, j−1) where the vertex
 * is d (both triangles), (i, j−1) where it is c, (i−1, j) where it is b,
 * (i, j) where it is a (both) — so the sum is the same float whichever way
 * it is computed. */
static void vertex_normal(const WbClothState *s, int i, int j, float n[3])
{
    const int nx = s->nx, ny = s->ny;
    float f[3];
    n[0] = n[1] = n[2] = 0.0f;
#define ADD_FACE(p1, p2, p3)                                                                  \
    do {                                                                                      \
        if (face_normal(s, p1, p2, p3, f))                                                    \
            n[0] += f[0], n[1] += f[1], n[2] += f[2];                                         \
    } while (0)
    if (i > 0 && j > 0) {
        int a = (j - 1) * nx + i - 1;
        ADD_FACE(a, a + 1, a + nx + 1);
        ADD_FACE(a, a + nx + 1, a + nx);
    }
    if (i + 1 < nx && j > 0) {
        int a = (j - 1) * nx + i;
        ADD_FACE(a, a + nx + 1, a + nx);
    }
    if (i > 0 && j + 1 < ny) {
        int a = j * nx + i - 1;
        ADD_FACE(a, a + 1, a + nx + 1);
    }
    if (i + 1 < nx && j + 1 < ny) {
        int a = j * nx + i;
        ADD_FACE(a, a + 1, a + nx + 1);
        ADD_FACE(a, a + nx + 1, a + nx);
    }
#undef ADD_FACE
}

/* n normalized in place as wb_cloth_normals() does it */
static void normalize3(float *x, float *y, float *z)
{
    float l = sqrtf(*x * *x + *y * *y + *z * *z);
    if (l > 0.0f) {
        float il = 1.0f / l;
        *x *= il;
        *y *= il;
        *z *= il;
    }
}

/* Quad row j's face normals into f (see DEFINE_NORMALS in
 * cloth_particles_kernel.inc for the layout). */
static void face_row(const WbClothState *s, int j, float *f)
{
    const int nx = s->nx;
    int i = 0;
#if WB_SIMD_WIDE
    if (s->lanes == 16)
        i = wb_cloth_v16_face_row(s, j, f, i);
    if (s->lanes >= 8)
        i = wb_cloth_v8_face_row(s, j, f, i);
#endif
    i = wb_cloth_v4_face_row(s, j, f, i);
    for (; i < nx - 1; i++) {
        int a = j * nx + i;
        float t[3] = {0.0f, 0.0f, 0.0f};
        face_normal(s, a, a + 1, a + nx + 1, t);
        f[i] = t[0], f[nx + i] = t[1], f[2 * nx + i] = t[2];
        t[0] = t[1] = t[2] = 0.0f;
        face_normal(s, a, a + nx + 1, a + nx, t);
        f[3 * nx + i] = t[0], f[4 * nx + i] = t[1], f[5 * nx + i] = t[2];
    }
}

/* Area-weighted vertex normals over the triangles (a, b, d), (a, d, c) of
 * each quad a = (i,j), b = (i+1,j), c = (i,j+1), d = (i+1,j+1); they point
 * along axis_i × axis_j on the flat cloth.  The border vertices one by one
 * (vertex_normal()), the inner ones from the face rows. */
void wb_cloth_normals(WbClothState *s)
{
    const int nx = s->nx, ny = s->ny;
    float *NX = s->nrmx, *NY = s->nrmy, *NZ = s->nrmz;
    float *up = s->face_rows, *dn = s->face_rows + 6 * nx;
    for (int j = 0; j < ny; j++) {
        int i = 0;
        if (j > 0 && j + 1 < ny) {
            if (j == 1)
                face_row(s, 0, up);
            face_row(s, j, dn);
            float n0[3];
            vertex_normal(s, 0, j, n0);
            normalize3(&n0[0], &n0[1], &n0[2]);
            NX[j * nx] = n0[0], NY[j * nx] = n0[1], NZ[j * nx] = n0[2];
            i = 1;
#if WB_SIMD_WIDE
            if (s->lanes == 16)
                i = wb_cloth_v16_vertex_row(s, j, up, dn, i);
            if (s->lanes >= 8)
                i = wb_cloth_v8_vertex_row(s, j, up, dn, i);
#endif
            i = wb_cloth_v4_vertex_row(s, j, up, dn, i);
            for (; i < nx - 1; i++) {
                int p = j * nx + i;
                float n[3];
                for (int c = 0; c < 3; c++) {
                    const float *u1 = up + c * nx, *u2 = up + (3 + c) * nx;
                    const float *d1 = dn + c * nx, *d2 = dn + (3 + c) * nx;
                    n[c] = 0.0f + u1[i - 1];
                    n[c] += u2[i - 1];
                    n[c] += u2[i];
                    n[c] += d1[i - 1];
                    n[c] += d1[i];
                    n[c] += d2[i];
                }
                normalize3(&n[0], &n[1], &n[2]);
                NX[p] = n[0], NY[p] = n[1], NZ[p] = n[2];
            }
            float *t = up;
            up = dn;
            dn = t;
        }
        for (; i < nx; i++) { /* a border row, or the last column */
            float n[3];
            vertex_normal(s, i, j, n);
            normalize3(&n[0], &n[1], &n[2]);
            int p = j * nx + i;
            NX[p] = n[0], NY[p] = n[1], NZ[p] = n[2];
        }
    }
}

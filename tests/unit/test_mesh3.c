/* Tests of the mesh generators: closed forms (vertices on the sphere,
 * ellipsoid, torus, capsule), unit outward normals, counter-clockwise
 * winding seen from outside, watertight topology (every edge shared by
 * exactly two triangles, used once in each direction), enclosed volume
 * close to the analytic one, appending offsets indices, bad counts. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/mesh3.h"

static uint64_t edge_key(uint32_t a, uint32_t b)
{
    return (uint64_t)a << 32 | b;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Closed and consistently oriented: every directed edge appears once and
 * its reverse appears once. */
static void assert_closed(const WbMeshBuf *b, int t0, int t1)
{
    int n = 3 * (t1 - t0);
    uint64_t *e = malloc((size_t)n * sizeof *e);
    for (int t = t0; t < t1; t++)
        for (int k = 0; k < 3; k++)
            e[3 * (t - t0) + k] = edge_key(b->idx[3 * t + k], b->idx[3 * t + (k + 1) % 3]);
    qsort(e, (size_t)n, sizeof *e, cmp_u64);
    for (int i = 0; i + 1 < n; i++)
        cr_assert_neq(e[i], e[i + 1], "directed edge used twice");
    for (int i = 0; i < n; i++) {
        uint64_t rev = edge_key((uint32_t)e[i], (uint32_t)(e[i] >> 32));
        cr_assert(bsearch(&rev, e, (size_t)n, sizeof *e, cmp_u64) != NULL,
                  "edge %u-%u has no twin", (unsigned)(e[i] >> 32), (unsigned)e[i]);
    }
    free(e);
}

/* Signed volume by the divergence theorem: Σ a·(b × c) / 6; positive when
 * the triangles are counter-clockwise seen from outside. */
static double volume(const WbMeshBuf *b, int t0, int t1)
{
    double v = 0.0;
    for (int t = t0; t < t1; t++) {
        const float *p = b->pos + 3 * b->idx[3 * t], *q = b->pos + 3 * b->idx[3 * t + 1];
        const float *r = b->pos + 3 * b->idx[3 * t + 2];
        v += p[0] * ((double)q[1] * r[2] - (double)q[2] * r[1]) -
             p[1] * ((double)q[0] * r[2] - (double)q[2] * r[0]) +
             p[2] * ((double)q[0] * r[1] - (double)q[1] * r[0]);
    }
    return v / 6.0;
}

static void assert_unit_normals(const WbMeshBuf *b)
{
    for (int i = 0; i < b->n_vertices; i++) {
        const float *n = b->normal + 3 * i;
        double l = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
        cr_assert(fabs(l - 1.0) < 1e-5, "normal %d has length %g", i, l);
        cr_assert(b->uv[2 * i] >= 0.0f && b->uv[2 * i] <= 1.0f);
        cr_assert(b->uv[2 * i + 1] >= 0.0f && b->uv[2 * i + 1] <= 1.0f);
    }
}

/* Every triangle's face normal agrees with its vertex normals (outward
 * winding), skipping degenerate ones. */
static void assert_winding_matches_normals(const WbMeshBuf *b)
{
    for (int t = 0; t < b->n_triangles; t++) {
        const uint32_t *f = b->idx + 3 * t;
        const float *p = b->pos + 3 * f[0], *q = b->pos + 3 * f[1], *r = b->pos + 3 * f[2];
        double e1[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
        double e2[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        double ln = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (ln < 1e-9)
            continue;
        double s = 0.0;
        for (int k = 0; k < 3; k++) {
            const float *vn = b->normal + 3 * f[k];
            s += (n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2]) / ln;
        }
        cr_assert_gt(s, 0.0, "triangle %d is wound against its normals", t);
    }
}

Test(mesh3, sphere_closed_form)
{
    WbMeshBuf b = {0};
    WbError err;
    const float c[3] = {1.0f, -2.0f, 0.5f};
    cr_assert_eq(wb_mesh3_sphere(&b, c, 2.0f, 24, 12, &err), WB_OK);
    cr_assert_eq(b.n_vertices, 24 * 11 + 2);
    cr_assert_eq(b.n_triangles, 2 * 24 * 11);
    for (int i = 0; i < b.n_vertices; i++) {
        const float *p = b.pos + 3 * i, *n = b.normal + 3 * i;
        double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
        double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        cr_assert(fabs(r - 2.0) < 1e-5, "vertex %d at radius %g", i, r);
        for (int k = 0; k < 3; k++)
            cr_assert(fabs(n[k] - d[k] / r) < 1e-5, "normal %d not radial", i);
    }
    assert_unit_normals(&b);
    assert_closed(&b, 0, b.n_triangles);
    assert_winding_matches_normals(&b);
    double v = volume(&b, 0, b.n_triangles), v_exact = 4.0 / 3.0 * M_PI * 8.0;
    cr_assert(v > 0.95 * v_exact && v < v_exact, "volume %g vs %g", v, v_exact);
    wb_meshbuf_free(&b);
}

Test(mesh3, ellipsoid_normals)
{
    WbMeshBuf b = {0};
    WbError err;
    const float c[3] = {0, 0, 0}, r[3] = {1.0f, 2.0f, 3.0f};
    cr_assert_eq(wb_mesh3_ellipsoid(&b, c, r, 16, 8, &err), WB_OK);
    for (int i = 0; i < b.n_vertices; i++) {
        const float *p = b.pos + 3 * i, *n = b.normal + 3 * i;
        double q = p[0] * p[0] / 1.0 + p[1] * p[1] / 4.0 + p[2] * p[2] / 9.0;
        cr_assert(fabs(q - 1.0) < 1e-5);
        /* Gradient (x/a², y/b², z/c²) is parallel to n. */
        double g[3] = {p[0] / 1.0, p[1] / 4.0, p[2] / 9.0};
        double cx = g[1] * n[2] - g[2] * n[1], cy = g[2] * n[0] - g[0] * n[2],
               cz = g[0] * n[1] - g[1] * n[0];
        cr_assert(sqrt(cx * cx + cy * cy + cz * cz) < 1e-5);
        cr_assert_gt(g[0] * n[0] + g[1] * n[1] + g[2] * n[2], 0.0);
    }
    assert_closed(&b, 0, b.n_triangles);
    assert_winding_matches_normals(&b);
    wb_meshbuf_free(&b);
}

Test(mesh3, torus_closed_form)
{
    WbMeshBuf b = {0};
    WbError err;
    const float c[3] = {0.0f, 1.0f, 0.0f};
    cr_assert_eq(wb_mesh3_torus(&b, c, 2.0f, 0.5f, 32, 12, &err), WB_OK);
    cr_assert_eq(b.n_vertices, 32 * 12);
    cr_assert_eq(b.n_triangles, 2 * 32 * 12);
    for (int i = 0; i < b.n_vertices; i++) {
        const float *p = b.pos + 3 * i, *n = b.normal + 3 * i;
        double rho = sqrt((double)p[0] * p[0] + (double)p[2] * p[2]);
        double dy = p[1] - 1.0;
        double tube = sqrt((rho - 2.0) * (rho - 2.0) + dy * dy);
        cr_assert(fabs(tube - 0.5) < 1e-5, "vertex %d off the tube (%g)", i, tube);
        /* Normal = (point − nearest point of the centre circle) / minor. */
        double cxp = p[0] * 2.0 / rho, czp = p[2] * 2.0 / rho;
        cr_assert(fabs(n[0] - (p[0] - cxp) / 0.5) < 1e-5);
        cr_assert(fabs(n[1] - dy / 0.5) < 1e-5);
        cr_assert(fabs(n[2] - (p[2] - czp) / 0.5) < 1e-5);
    }
    assert_unit_normals(&b);
    assert_closed(&b, 0, b.n_triangles);
    assert_winding_matches_normals(&b);
    double v = volume(&b, 0, b.n_triangles), v_exact = 2.0 * M_PI * M_PI * 2.0 * 0.25;
    /* Inscribed polygons: the 12-gon tube section keeps 3/π of the disc. */
    cr_assert(v > 0.93 * v_exact && v < v_exact, "volume %g vs %g", v, v_exact);
    wb_meshbuf_free(&b);
}

Test(mesh3, capsule_closed_form)
{
    WbMeshBuf b = {0};
    WbError err;
    const float c[3] = {0.0f, 0.0f, 0.0f};
    cr_assert_eq(wb_mesh3_capsule(&b, c, 0.5f, 1.0f, 20, 6, &err), WB_OK);
    for (int i = 0; i < b.n_vertices; i++) {
        const float *p = b.pos + 3 * i;
        /* Distance to the segment y ∈ [−1, 1] on the axis is the radius. */
        double y = p[1] < -1.0f ? -1.0 : p[1] > 1.0f ? 1.0 : p[1];
        double d = sqrt((double)p[0] * p[0] + (p[1] - y) * (p[1] - y) + (double)p[2] * p[2]);
        cr_assert(fabs(d - 0.5) < 1e-5, "vertex %d at %g from the axis segment", i, d);
    }
    assert_unit_normals(&b);
    assert_closed(&b, 0, b.n_triangles);
    assert_winding_matches_normals(&b);
    double v = volume(&b, 0, b.n_triangles);
    double v_exact = M_PI * 0.25 * 2.0 + 4.0 / 3.0 * M_PI * 0.125;
    cr_assert(v > 0.95 * v_exact && v < v_exact, "volume %g vs %g", v, v_exact);
    /* half_length 0 is a (closed) sphere. */
    wb_meshbuf_clear(&b);
    cr_assert_eq(wb_mesh3_capsule(&b, c, 0.5f, 0.0f, 8, 3, &err), WB_OK);
    assert_closed(&b, 0, b.n_triangles);
    wb_meshbuf_free(&b);
}

Test(mesh3, lathe_closed_with_caps_and_poles)
{
    WbMeshBuf b = {0};
    WbError err;
    const float c[3] = {0.0f, 0.0f, 0.0f};
    /* A cylinder (caps at both ends): volume π r² h. */
    const float r1[2] = {1.0f, 1.0f}, y1[2] = {0.0f, 2.0f};
    cr_assert_eq(wb_mesh3_lathe(&b, c, r1, y1, 2, 64, &err), WB_OK);
    assert_closed(&b, 0, b.n_triangles);
    assert_unit_normals(&b);
    assert_winding_matches_normals(&b);
    double v = volume(&b, 0, b.n_triangles), v_exact = M_PI * 2.0;
    cr_assert(v > 0.99 * v_exact && v < v_exact, "volume %g vs %g", v, v_exact);
    /* A cone with a pole on top and a cap below, appended to the cylinder:
     * the indices of the second shape are offset. */
    int t0 = b.n_triangles, v0 = b.n_vertices;
    const float r2[3] = {1.0f, 0.5f, 0.0f}, y2[3] = {3.0f, 3.5f, 4.0f};
    cr_assert_eq(wb_mesh3_lathe(&b, c, r2, y2, 3, 32, &err), WB_OK);
    for (int t = t0; t < b.n_triangles; t++)
        for (int k = 0; k < 3; k++)
            cr_assert_geq(b.idx[3 * t + k], (uint32_t)v0);
    assert_closed(&b, t0, b.n_triangles);
    assert_winding_matches_normals(&b);
    cr_assert_gt(volume(&b, t0, b.n_triangles), 0.0);
    /* Interior radius 0 is refused and leaves the buffer unchanged. */
    int nv = b.n_vertices, nt = b.n_triangles;
    const float r3[3] = {1.0f, 0.0f, 1.0f};
    cr_assert_eq(wb_mesh3_lathe(&b, c, r3, y2, 3, 8, &err), WB_E_INPUT);
    cr_assert_eq(b.n_vertices, nv);
    cr_assert_eq(b.n_triangles, nt);
    wb_meshbuf_free(&b);
}

Test(mesh3, box_and_plane)
{
    WbMeshBuf b = {0};
    WbError err;
    const float lo[3] = {-1, -2, -3}, hi[3] = {1, 2, 3};
    cr_assert_eq(wb_mesh3_box(&b, lo, hi, &err), WB_OK);
    cr_assert_eq(b.n_vertices, 24);
    cr_assert_eq(b.n_triangles, 12);
    assert_winding_matches_normals(&b);
    cr_assert(fabs(volume(&b, 0, 12) - 48.0) < 1e-4);
    wb_meshbuf_clear(&b);
    cr_assert_eq(b.n_vertices, 0);
    const float c[3] = {0.0f, 0.5f, 0.0f};
    cr_assert_eq(wb_mesh3_plane(&b, c, 4.0f, 2.0f, 4, 2, &err), WB_OK);
    cr_assert_eq(b.n_vertices, 15);
    cr_assert_eq(b.n_triangles, 16);
    assert_winding_matches_normals(&b);
    /* Vertex (i, k) at k·(nx+1) + i. */
    const float *p = b.pos + 3 * (1 * 5 + 3);
    cr_assert_float_eq(p[0], 1.0f, 1e-6);
    cr_assert_float_eq(p[1], 0.5f, 1e-6);
    cr_assert_float_eq(p[2], 0.0f, 1e-6);
    cr_assert_float_eq(b.uv[2 * 8], 0.75f, 1e-6);
    cr_assert_float_eq(b.uv[2 * 8 + 1], 0.5f, 1e-6);
    wb_meshbuf_free(&b);
}

Test(mesh3, normals_area_weighted)
{
    /* Two triangles meeting at vertex 0: one in the xy plane (area 2,
     * normal +z), one in the xz plane wound toward +y (area 1); the shared
     * vertex gets the area-weighted mean direction (0, 1, 2)/√5. */
    const float pos[] = {0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1};
    const uint32_t idx[] = {0, 1, 2, 0, 3, 1};
    float n[12];
    cr_assert_eq(wb_mesh3_normals(pos, 4, idx, 2, n, NULL), WB_OK);
    double l = sqrt(5.0);
    cr_assert_float_eq(n[0], 0.0f, 1e-6);
    cr_assert_float_eq(n[1], (float)(1.0 / l), 1e-6);
    cr_assert_float_eq(n[2], (float)(2.0 / l), 1e-6);
    cr_assert_float_eq(n[3 * 2 + 2], 1.0f, 1e-6);   /* only on the xy triangle */
    cr_assert_float_eq(n[3 * 3 + 1], 1.0f, 1e-6);   /* only on the xz triangle */
}

/* The scratch variant is the same function: a deformed sphere's normals
 * agree bit for bit, whatever the scratch held before, and a vertex on no
 * triangle still gets (0, 1, 0). */
Test(mesh3, normals_into_equal_normals)
{
    WbMeshBuf b = {0};
    cr_assert_eq(wb_mesh3_sphere(&b, (const float[3]){0, 0, 0}, 1.0f, 24, 12, NULL), WB_OK);
    const int n = b.n_vertices + 1; /* one extra vertex on no triangle */
    float *pos = malloc(sizeof(float) * 3 * (size_t)n);
    float *n1 = malloc(sizeof(float) * 3 * (size_t)n), *n2 = malloc(sizeof(float) * 3 * (size_t)n);
    double *acc = malloc(sizeof(double) * 3 * (size_t)n);
    cr_assert(pos && n1 && n2 && acc);
    for (int i = 0; i < 3 * b.n_vertices; i++)
        pos[i] = b.pos[i] * (1.0f + 0.3f * sinf(7.0f * (float)i));
    pos[3 * n - 3] = pos[3 * n - 2] = pos[3 * n - 1] = 5.0f;
    for (int i = 0; i < 3 * n; i++)
        acc[i] = 1e9; /* garbage the function must clear */
    cr_assert_eq(wb_mesh3_normals(pos, n, b.idx, b.n_triangles, n1, NULL), WB_OK);
    wb_mesh3_normals_into(pos, n, b.idx, b.n_triangles, n2, acc);
    cr_assert_eq(memcmp(n1, n2, sizeof(float) * 3 * (size_t)n), 0);
    cr_assert_eq(n2[3 * n - 2], 1.0f);
    free(pos);
    free(n1);
    free(n2);
    free(acc);
    wb_meshbuf_free(&b);
}

Test(mesh3, bad_counts_refused)
{
    WbMeshBuf b = {0};
    WbError err;
    const float c[3] = {0, 0, 0};
    cr_assert_eq(wb_mesh3_sphere(&b, c, 1.0f, 2, 8, &err), WB_E_INPUT);
    cr_assert_eq(wb_mesh3_sphere(&b, c, 1.0f, 8, 1, &err), WB_E_INPUT);
    cr_assert_eq(wb_mesh3_sphere(&b, c, -1.0f, 8, 8, &err), WB_E_INPUT);
    cr_assert_eq(wb_mesh3_torus(&b, c, 1.0f, 2.0f, 8, 8, &err), WB_E_INPUT);
    cr_assert_eq(wb_mesh3_plane(&b, c, 1.0f, 1.0f, 0, 3, &err), WB_E_INPUT);
    cr_assert_eq(b.n_vertices, 0);
    cr_assert_eq(b.n_triangles, 0);
    wb_meshbuf_free(&b);
}

/* Tests of the pinhole camera: the target lands on the image centre, depth
 * follows the OpenGL closed form, w is the distance along the view, orbit
 * yaw/pitch put the eye where camera.h says, and the field of view maps a
 * point at the top edge of the frustum to y_ndc = 1. */
#include <criterion/criterion.h>
#include <math.h>

#include "render/camera.h"

static void apply(const double m[16], const double p[3], double clip[4])
{
    for (int r = 0; r < 4; r++)
        clip[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
}

#define NEAR(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%s = %.12g, expected %.12g", #a, (double)(a), (double)(b))

Test(camera, orbit_places_eye)
{
    const double t[3] = {1.0, 2.0, 3.0};
    WbCamera c = wb_camera_orbit(t, 0.0, 0.0, 5.0);
    NEAR(c.eye[0], 1.0, 1e-12);
    NEAR(c.eye[1], 2.0, 1e-12);
    NEAR(c.eye[2], 8.0, 1e-12);   /* yaw 0: from +z */
    c = wb_camera_orbit(t, 90.0, 0.0, 5.0);
    NEAR(c.eye[0], 6.0, 1e-12);   /* yaw 90: from +x */
    NEAR(c.eye[2], 3.0, 1e-12);
    c = wb_camera_orbit(t, 0.0, 30.0, 4.0);
    NEAR(c.eye[1], 2.0 + 2.0, 1e-12);            /* from above: 4·sin 30° */
    NEAR(c.eye[2], 3.0 + 4.0 * cos(M_PI / 6), 1e-12);
    NEAR(c.fov_y, 40.0, 0.0);
    NEAR(c.near, 0.04, 1e-15);
    NEAR(c.far, 400.0, 1e-12);
    NEAR(c.up[1], 1.0, 0.0);
}

Test(camera, target_at_centre_and_depth_closed_form)
{
    const double t[3] = {0.5, -1.0, 2.0};
    for (int k = 0; k < 4; k++) {
        double yaw = -130.0 + 77.0 * k, pitch = -40.0 + 25.0 * k, d = 3.0 + k;
        WbCamera c = wb_camera_orbit(t, yaw, pitch, d);
        double m[16], clip[4];
        wb_camera_matrix(&c, 16.0 / 9.0, m);
        apply(m, t, clip);
        NEAR(clip[3], d, 1e-12);                 /* w = distance along the view */
        NEAR(clip[0] / clip[3], 0.0, 1e-12);
        NEAR(clip[1] / clip[3], 0.0, 1e-12);
        double n = c.near, f = c.far;
        double zexp = (f + n) / (f - n) - 2.0 * f * n / ((f - n) * d);
        NEAR(clip[2] / clip[3], zexp, 1e-12);
    }
}

Test(camera, near_and_far_planes_map_to_minus_one_and_one)
{
    WbCamera c = {.eye = {0, 0, 0}, .target = {0, 0, -1}, .up = {0, 1, 0}, .fov_y = 60.0,
                  .near = 0.5, .far = 50.0};
    double m[16], clip[4];
    wb_camera_matrix(&c, 1.0, m);
    apply(m, (double[3]){0, 0, -0.5}, clip);
    NEAR(clip[2] / clip[3], -1.0, 1e-12);
    apply(m, (double[3]){0, 0, -50.0}, clip);
    NEAR(clip[2] / clip[3], 1.0, 1e-12);
}

Test(camera, fov_and_axes)
{
    /* Looking down −z from the origin: +x is right, +y is up, and a point at
     * angle fov/2 above the axis is on the top edge; aspect widens x. */
    WbCamera c = {.eye = {0, 0, 0}, .target = {0, 0, -1}, .up = {0, 3, 0.2}, .fov_y = 50.0,
                  .near = 0.1, .far = 100.0};
    double m[16], clip[4];
    double aspect = 2.0;
    wb_camera_matrix(&c, aspect, m);
    double h = tan(25.0 * M_PI / 180.0) * 4.0;
    apply(m, (double[3]){0, h, -4.0}, clip);
    NEAR(clip[1] / clip[3], 1.0, 1e-12);
    NEAR(clip[0] / clip[3], 0.0, 1e-12);
    apply(m, (double[3]){h * aspect, 0, -4.0}, clip);
    NEAR(clip[0] / clip[3], 1.0, 1e-12);
    NEAR(clip[3], 4.0, 1e-12);
}

Test(camera, orbit_right_vector)
{
    /* From yaw 90 (eye on +x), looking toward −x: world −z is to the right. */
    const double t[3] = {0, 0, 0};
    WbCamera c = wb_camera_orbit(t, 90.0, 0.0, 10.0);
    double m[16], clip[4];
    wb_camera_matrix(&c, 1.0, m);
    apply(m, (double[3]){0, 0, -1}, clip);
    cr_assert_gt(clip[0] / clip[3], 0.0);
    apply(m, (double[3]){0, 1, 0}, clip);
    cr_assert_gt(clip[1] / clip[3], 0.0);
}

Test(camera, degenerate_camera_stays_finite)
{
    WbCamera c = {.eye = {0, 5, 0}, .target = {0, 0, 0}, .up = {0, 1, 0}, .fov_y = 40.0,
                  .near = 0.1, .far = 10.0};
    double m[16];
    wb_camera_matrix(&c, 1.0, m);
    for (int i = 0; i < 16; i++)
        cr_assert(isfinite(m[i]));
    double clip[4];
    apply(m, (double[3]){0, 0, 0}, clip);
    NEAR(clip[3], 5.0, 1e-12);
    NEAR(clip[0], 0.0, 1e-12);
    c.target[1] = 5.0;  /* eye on target */
    wb_camera_matrix(&c, 1.0, m);
    for (int i = 0; i < 16; i++)
        cr_assert(isfinite(m[i]));
}

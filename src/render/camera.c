/* camera.c — see camera.h.
 *
 * The matrix is the product P·V of the usual look-at view matrix and the
 * OpenGL perspective projection:
 *
 *     f = (target − eye)/|…|,  s = f × up / |…|,  u = s × f
 *     V = [ s  −s·eye ;  u  −u·eye ;  −f  f·eye ;  0 0 0 1 ]     (rows)
 *     P = [ t/aspect 0 0 0 ;  0 t 0 0 ;  0 0 (F+N)/(N−F) 2FN/(N−F) ;  0 0 −1 0 ]
 *
 * with t = 1/tan(fov_y/2).  Row 4 of P·V is (f, −f·eye): w = distance of
 * the point in front of the eye along the view direction.
 */
#include "render/camera.h"

#include <math.h>

#define DEG (M_PI / 180.0)
#define PITCH_LIMIT 89.9

WbCamera wb_camera_orbit(const double target[3], double yaw_deg, double pitch_deg,
                         double distance)
{
    double p = pitch_deg > PITCH_LIMIT ? PITCH_LIMIT
             : pitch_deg < -PITCH_LIMIT ? -PITCH_LIMIT : pitch_deg;
    double cy = cos(yaw_deg * DEG), sy = sin(yaw_deg * DEG);
    double cp = cos(p * DEG), sp = sin(p * DEG);
    WbCamera c = {
        .eye = {target[0] + distance * sy * cp, target[1] + distance * sp,
                target[2] + distance * cy * cp},
        .target = {target[0], target[1], target[2]},
        .up = {0.0, 1.0, 0.0},
        .fov_y = 40.0,
        .near = distance / 100.0,
        .far = distance * 100.0,
    };
    return c;
}

static double norm3(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0.0 && isfinite(l)) {
        v[0] /= l;
        v[1] /= l;
        v[2] /= l;
    }
    return l;
}

static void cross3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void wb_camera_matrix(const WbCamera *c, double aspect, double m[16])
{
    double f[3] = {c->target[0] - c->eye[0], c->target[1] - c->eye[1], c->target[2] - c->eye[2]};
    if (!(norm3(f) > 0.0)) {
        f[0] = 0.0, f[1] = 0.0, f[2] = -1.0;   /* eye on target: look down −z */
    }
    double up[3] = {c->up[0], c->up[1], c->up[2]};
    double s[3];
    cross3(f, up, s);
    if (!(norm3(s) > 1e-12)) {
        /* up missing or parallel to the view: +y, or +z when looking along y. */
        double alt[3] = {0.0, 1.0, 0.0};
        if (fabs(f[1]) > 0.999)
            alt[1] = 0.0, alt[2] = f[1] > 0.0 ? -1.0 : 1.0;
        cross3(f, alt, s);
        norm3(s);
    }
    double u[3];
    cross3(s, f, u);

    double fov = c->fov_y > 0.0 && c->fov_y < 180.0 ? c->fov_y : 40.0;
    double n = c->near > 0.0 ? c->near : 1e-3;
    double fa = c->far > n ? c->far : n * 1e4;
    double a = aspect > 0.0 && isfinite(aspect) ? aspect : 1.0;
    double t = 1.0 / tan(0.5 * fov * DEG);
    double zz = (fa + n) / (n - fa), zw = 2.0 * fa * n / (n - fa);

    /* Rows of V. */
    double v0[4] = {s[0], s[1], s[2], -dot3(s, c->eye)};
    double v1[4] = {u[0], u[1], u[2], -dot3(u, c->eye)};
    double v2[4] = {-f[0], -f[1], -f[2], dot3(f, c->eye)};
    for (int k = 0; k < 4; k++) {
        m[0 + k] = t / a * v0[k];
        m[4 + k] = t * v1[k];
        m[8 + k] = zz * v2[k] + (k == 3 ? zw : 0.0);
        m[12 + k] = -v2[k];
    }
}

/* camera.h — a pinhole camera for the 3D views (SPEC §5).
 *
 * Conventions: world space is right-handed with +y up.  The camera looks
 * from `eye` toward `target`; view space has the camera at the origin,
 * looking down −z, +x to the right of the image and +y up in it.  Clip
 * space is OpenGL's: after the divide by w, x and y in [−1, 1] span the
 * image (x right, y UP) and z_ndc in [−1, 1] spans [near, far] (−1 at the
 * near plane, +1 at the far plane), with w = the view-space distance along
 * the viewing direction (w = −z_view).  The rasterizer (raster3d.h) turns
 * NDC into pixels with y pointing down.
 *
 * Units: positions and distances in world units, angles in degrees.
 */
#ifndef WB_CAMERA_H
#define WB_CAMERA_H

typedef struct WbCamera {
    double eye[3], target[3], up[3];   /* world units; up need not be unit/orthogonal
                                          to the view direction, only not parallel to it */
    double fov_y;                      /* vertical field of view, degrees, (0, 180) */
    double near, far;                  /* clip distances along the view direction,
                                          world units, 0 < near < far */
} WbCamera;

/* A camera looking at `target` from `distance` world units away, placed by
 * yaw and pitch in degrees:
 *   eye = target + distance·(sin(yaw)·cos(pitch), sin(pitch), cos(yaw)·cos(pitch))
 * so yaw 0 looks from +z (toward −z), yaw 90 from +x, and pitch > 0 looks
 * from above (pitch is clamped to ±89.9° so +y stays a usable up vector).
 * up = +y, fov_y = 40°, near = distance/100, far = distance·100.
 * distance must be > 0. */
WbCamera wb_camera_orbit(const double target[3], double yaw_deg, double pitch_deg,
                         double distance);

/* World → clip transform, row-major 4×4: clip = M·(x, y, z, 1).  Right-
 * handed, y up, OpenGL depth (see above); aspect = image width / height
 * (> 0).  A degenerate camera (eye == target, up parallel to the view
 * direction, or bad fov/near/far) falls back to sane axes (+y up, or +z when
 * looking straight up or down) rather than producing NaNs. */
void wb_camera_matrix(const WbCamera *c, double aspect, double m[16]);

#endif

/* mannequin.h — a parametric dress-form body as a set of collision spheres
 * (SPEC 4.3).
 *
 * The torso is cut into `slices` horizontal slices from the hips to the
 * shoulders.  Each slice is an ellipse, half-width a(t) side to side and
 * half-depth b(t) front to back (a ≥ b), interpolated between four girths
 * (hip, waist, chest, shoulder) along the height.  An ellipse is filled by a
 * centre sphere of radius b and a left and a right sphere of radius
 * b·WB_MANNEQUIN_SIDE_RATIO placed so their outer edge reaches ±a: the union
 * spans the full width and depth of the slice.  A head sphere sits
 * above the shoulders.  Default: 9 slices × 3 + head = 28 spheres.
 *
 * Units are metres, y up, the body's axis vertical at (x, z) = position.
 */
#ifndef WB_MANNEQUIN_H
#define WB_MANNEQUIN_H

#define WB_MANNEQUIN_MAX_SLICES 20
#define WB_MANNEQUIN_SIDE_RATIO 0.8f

/* A sphere (metres). */
typedef struct WbSphere {
    float x, y, z, r;
} WbSphere;

typedef struct WbMannequinDef {
    float position[3];     /* floor point under the body axis, metres */
    float hip_height;      /* height of the lowest slice above position.y */
    float torso_height;    /* hips to shoulders, metres */
    float hip[2];          /* half-width, half-depth of each girth, metres */
    float waist[2];
    float chest[2];
    float shoulder[2];
    float head_radius;     /* 0 = no head sphere */
    int slices;            /* 2..WB_MANNEQUIN_MAX_SLICES */
} WbMannequinDef;

/* A 1.7 m dress form: hips at 0.95 m, shoulders at 1.50 m, 9 slices + head. */
WbMannequinDef wb_mannequin_default(void);

/* Number of spheres wb_mannequin_build() writes for `def`. */
int wb_mannequin_sphere_count(const WbMannequinDef *def);

/* Write the spheres, hips first, into out[0 .. count-1]; returns count, or -1
 * when `max` is too small or def is invalid (slices out of range, a
 * non-positive girth).  Pure. */
int wb_mannequin_build(const WbMannequinDef *def, WbSphere *out, int max);

#endif

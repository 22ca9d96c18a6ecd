/* scene.h — the typed, validated scene: what the loader produces and the
 * rest of wobble consumes.  No I/O happens after a scene is loaded except
 * reading the files it names (image, mask), which the run step does.
 *
 * Units: times in seconds, frequencies in Hz, image-space points in the
 * image-normalized square [0,1]² (origin top left, y down) unless marked as
 * pixels (`[312px, 80px]` in the file), lengths as a fraction of the image's
 * SHORTER edge unless marked as pixels.  Values given in pixels are kept as
 * such (WbLen.px) and resolved by wb_len_resolve()/wb_point_resolve() once the
 * image size is known.
 */
#ifndef WB_SCENE_H
#define WB_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/color.h"
#include "core/error.h"
#include "core/fit.h"

#define WB_SCENE_VERSION 1  /* the `wobble:` format version this build reads */
#define WB_MAX_PINS 4       /* pins active at once (SPEC 4.1) */
#define WB_NAME_MAX 64
#define WB_PATH_MAX 1024

typedef enum WbKind { WB_KIND_PHOTO, WB_KIND_JIGGLE, WB_KIND_CLOTH, WB_KIND_ROPE } WbKind;

/* A length: `value` is a fraction of the image's shorter edge, or pixels when
 * px is true.  `automatic` means "derive it" (e.g. the grab radius rule). */
typedef struct WbLen {
    double value;
    bool px;
    bool automatic;
} WbLen;

/* A point in image space: normalized [0,1]² per axis, or pixels per axis. */
typedef struct WbPoint {
    double x, y;
    bool px_x, px_y;
} WbPoint;

/* output.motion_blur: each frame the average, in linear light, of `samples`
 * sub-frame states over the last `shutter` of its frame interval
 * (run/blur.h).  samples 1: no blur. */
typedef struct WbMotionBlurDef {
    int samples;           /* sub-frames per frame, 1..64 */
    double shutter;        /* fraction of 1/fps the shutter is open, (0, 1] */
} WbMotionBlurDef;

typedef struct WbOutputDef {
    int width, height;     /* 0 = derived from the other side and the content's aspect */
    double scale;          /* applied to the size after that; 1 = as given */
    double fps;            /* frames per second, > 0 */
    double duration;       /* seconds; with until_settled, the upper bound */
    bool until_settled;    /* stop at the first frame where nothing moves */
    double settle_hold;    /* seconds of stillness kept after settling */
    double preroll;        /* seconds simulated before frame 0: frame f shows scene
                              time preroll + f/fps (timeline times are scene times) */
    WbColor background;    /* used when !transparent */
    bool transparent;      /* background alpha 0; RGBA outputs keep it */
    WbFit fit;
    int loop_count;        /* GIF, WebP, APNG: times played, 0 = forever */
    /* Seamless loop (run/loop.h): pre-roll until the periodic drivers'
     * motion repeats, then exactly loop_periods of their common period;
     * preroll and duration are replaced by what the run layer finds. */
    bool loop;
    int loop_periods;
    bool pingpong;         /* frames forward, then back without the turn frames */
    WbMotionBlurDef motion_blur;
} WbOutputDef;

/* photo.integrator; the run layer hands the solver its own WbSpringIntegrator. */
typedef enum WbIntegrator { WB_INTEGRATOR_EULER, WB_INTEGRATOR_EXACT } WbIntegrator;

typedef enum WbPreset {
    WB_PRESET_NONE, WB_PRESET_SPRING, WB_PRESET_RUBBER, WB_PRESET_JELLY
} WbPreset;

/* photo.fill: what the still background shows under the masked object. */
typedef enum WbPhotoFill {
    WB_PHOTO_FILL_INPAINT,  /* continued from the surroundings (core/inpaint.h) */
    WB_PHOTO_FILL_NONE,     /* the photo itself: the object stays behind */
    WB_PHOTO_FILL_COLOR     /* a flat colour, WbPhotoDef.fill_color */
} WbPhotoFill;

/* photo.edge: what shows beyond the photo's border where it pulls inwards. */
typedef enum WbPhotoEdge {
    WB_PHOTO_EDGE_CLAMP,       /* the border pixels continue outwards */
    WB_PHOTO_EDGE_MIRROR,      /* the photo reflected at its border */
    WB_PHOTO_EDGE_TRANSPARENT, /* nothing: the output's background shows */
    WB_PHOTO_EDGE_COLOR        /* a flat colour, WbPhotoDef.edge_color */
} WbPhotoEdge;

typedef struct WbSegmentDef {
    bool enabled;
    WbPoint at;            /* seed point of the flood fill */
    double tolerance;      /* colour distance 0..1 (RGB, Euclidean / sqrt 3) */
} WbSegmentDef;

typedef struct WbPhotoDef {
    char image[WB_PATH_MAX];   /* resolved relative to the scene file's folder */
    int grid;                  /* cells per side; vertices = (grid+1)² */
    WbPreset preset;           /* sets elasticity/bounce/frequency defaults */
    double frequency;          /* Hz of the undamped spring at elasticity 0: k0 = (2π f)² */
    double elasticity;         /* s in [-1, 1]: k = k0 · 2^s */
    double bounce;             /* damping ratio ζ in [0.16, 1]: c = ζ · 2√k */
    WbIntegrator integrator;
    double rate;               /* simulation steps per second (fixed dt = 1/rate) */
    WbLen radius;              /* grab radius; automatic = 1/6 shorter edge or mask rule */
    double grip;               /* grip lets go past this pull (shorter-edge units) at s = 0;
                                  scales with √(k/k0) */
    double settle_epsilon;     /* "still" threshold, shorter-edge units */
    bool fold_limit;           /* keep cells from folding (sim/photo_fold.h) */
    char mask[WB_PATH_MAX];    /* "" = none; grey or alpha PNG */
    WbSegmentDef segment;      /* flood-fill stand-in for a segmenter */
    WbPhotoFill fill;          /* under the mask, in the still background */
    WbColor fill_color;        /* straight RGBA 0..1, for WB_PHOTO_FILL_COLOR */
    WbPhotoEdge edge;          /* beyond the border */
    WbColor edge_color;        /* straight RGBA 0..1, for WB_PHOTO_EDGE_COLOR */
} WbPhotoDef;

typedef enum WbEase {
    WB_EASE_LINEAR, WB_EASE_IN, WB_EASE_OUT, WB_EASE_IN_OUT, WB_EASE_STEP
} WbEase;

typedef struct WbKey {
    double time;     /* absolute scene time the cursor reaches `to` */
    WbPoint to;
    WbEase ease;     /* easing of the segment that ends at this key */
} WbKey;

/* ---- kind rope (SPEC 4.4) ----
 * The world is a 2D rectangle `view` (metres, origin top left, y DOWN, so
 * gravity is positive), framed into the output by output.fit.  Points are
 * world metres; pixel points are not accepted (the world has no pixels). */
#define WB_ROPE_SCENE_MAX_POINTS 16   /* vertices of an obstacle */

typedef enum WbRopeSolverKind { WB_ROPE_SOLVER_JAKOBSEN, WB_ROPE_SOLVER_CHAIN } WbRopeSolverKind;

typedef enum WbRopePin {
    WB_ROPE_PIN_BOTH, WB_ROPE_PIN_START, WB_ROPE_PIN_END, WB_ROPE_PIN_NONE
} WbRopePin;

/* A fixed list of keys at absolute times (no allocation, so a list item
 * that holds one owns nothing): rope anchor paths, jiggle drive paths. */
#define WB_SCENE_MAX_KEYS 16
typedef struct WbKeyList {
    WbKey keys[WB_SCENE_MAX_KEYS];
    int n;
} WbKeyList;

/* An anchor path: the anchor starts at the rope's end point at time 0,
 * moves to each key with the key's easing, and holds the last key. */
typedef WbKeyList WbRopePathDef;

typedef struct WbRopeLineDef {
    WbPoint from, to;          /* metres */
    int nodes;                 /* particles, >= 2 */
    double length;             /* rest length, metres; 0 = |to - from| */
    WbRopePin pin;
    double end_mass;           /* mass of the last particle in node masses */
    WbLen width;               /* metres, or pixels when px */
    WbColor colour;
    WbRopePathDef start_path, end_path;
} WbRopeLineDef;

typedef struct WbRopeObstacleDef {
    int n;                     /* 3..WB_ROPE_SCENE_MAX_POINTS, convex */
    double x[WB_ROPE_SCENE_MAX_POINTS], y[WB_ROPE_SCENE_MAX_POINTS]; /* metres */
    WbColor colour;
} WbRopeObstacleDef;

typedef struct WbRopeViewDef {
    double width, height;      /* metres */
} WbRopeViewDef;

typedef struct WbRopeSceneDef {
    WbRopeSolverKind solver;
    int passes;                /* relaxation sweeps / chain projections per step */
    double damping;            /* share of the implicit velocity kept per step */
    double gravity;            /* m/s^2, along +y (down) */
    double step;               /* fixed dt, s */
    double max_frame_delta;    /* accumulator clamp, s (live frame feeding) */
    double settle_speed;       /* below this (m/s) every particle counts as still */
    WbRopeViewDef view;
    WbRopeLineDef *ropes;      /* owned */
    size_t n_ropes;
    WbRopeObstacleDef *obstacles; /* owned */
    size_t n_obstacles;
} WbRopeSceneDef;


/* ---- kind jiggle (SPEC 4.2) ----
 * The world is y UP (gravity pulls along −y, as in the jiggle core), in
 * shape units: the 2D shapes are about 2 units tall, centred on the origin
 * at rest; the 1D handle moves along y.  Points are world units; pixel
 * points are not accepted. */

typedef enum WbJiggleViewKind {
    WB_JIGGLE_VIEW_1D, WB_JIGGLE_VIEW_2D, WB_JIGGLE_VIEW_3D
} WbJiggleViewKind;

/* 2d outlines: disc, capsule, ring; 3d meshes: capsule, orb, torus,
 * dancer, walker (capsule is both). */
typedef enum WbJiggleShape {
    WB_JIGGLE_SHAPE_DISC, WB_JIGGLE_SHAPE_CAPSULE, WB_JIGGLE_SHAPE_RING,
    WB_JIGGLE_SHAPE_ORB, WB_JIGGLE_SHAPE_TORUS, WB_JIGGLE_SHAPE_DANCER, WB_JIGGLE_SHAPE_WALKER
} WbJiggleShape;

/* The value starts at [0, 0] at 0 s, moves to each key with its easing and
 * holds the last key. */
typedef WbKeyList WbJigglePathDef;

typedef struct WbJiggleOrbitDef {
    bool enabled;              /* the block was given */
    double yaw, pitch;         /* swing amplitudes, radians */
    double period;             /* s of one swing */
    double gain;               /* parent units per radian (reference 0.04) */
} WbJiggleOrbitDef;

typedef struct WbJiggleWalkDef {
    bool enabled;
    double bob;                /* vertical bob amplitude, units */
    double period;             /* s of one cycle; 0 = pi / WB_JIGGLE_WALK_RATE */
} WbJiggleWalkDef;

typedef struct WbJiggleDriveDef {
    WbJigglePathDef path;      /* parent positions [x, y] */
    WbJigglePathDef accel;     /* parent accelerations [ax, ay], units/s^2, used as is */
    WbJiggleOrbitDef orbit;
    WbJiggleWalkDef walk;
    double gain;               /* scale of the parent motion the bones feel */
    double smoothing;          /* driver velocity smoothing time constant, s */
} WbJiggleDriveDef;

typedef struct WbJiggleGainDef {
    double all, bone0, bone1, bone2;
} WbJiggleGainDef;

typedef struct WbJiggleFloorDef {
    bool enabled;
    double y;                  /* bones keep y >= this */
} WbJiggleFloorDef;

typedef struct WbJiggleRingColliderDef {
    bool enabled;
    WbPoint at;                /* centre, world units */
    double radius;
} WbJiggleRingColliderDef;

/* A capsule (segment a-b swept by radius) at z = 0 the bones stay out of. */
typedef struct WbJiggleCapsuleColliderDef {
    bool enabled;
    WbPoint a, b;              /* segment ends, world units */
    double radius;
} WbJiggleCapsuleColliderDef;

/* 3d: the camera orbits the shape's centre (the orbit drive swings it). */
typedef struct WbJiggleCameraDef {
    double yaw, pitch;         /* degrees: yaw 0 looks from +z, pitch > 0 from above */
    double distance;           /* world units; 0 = fit the shape */
    double fov;                /* vertical field of view, degrees */
} WbJiggleCameraDef;

typedef struct WbJiggleSceneDef {
    WbJiggleViewKind view;
    WbJiggleShape shape;       /* 2d: disc/capsule/ring; 3d: orb/capsule/torus/dancer/walker */
    double freq, damp, gravity;
    double rate;               /* steps per second, fixed dt = 1/rate */
    char weights[WB_PATH_MAX]; /* "" = the shape's preset paint */
    double force_radius;       /* blur radius, fraction of the map width (x0.35) */
    WbJiggleGainDef gain;
    double limit, restitution;
    WbJiggleFloorDef floor;
    WbJiggleRingColliderDef ring_collider;
    WbJiggleCapsuleColliderDef capsule_collider;
    bool chain;                /* bone 1 hangs off bone 0's tip, bone 2 off bone 1's */
    bool overlay;              /* 2d: bones as rest ring -> offset dot */
    double window;             /* 1d: seconds of trace shown */
    WbColor colour;            /* 2d fill, 3d surface */
    WbJiggleDriveDef drive;
    WbJiggleCameraDef camera;  /* 3d */
    double squash;             /* 3d squash-and-stretch styling, 0..1 (0 = off) */
    bool heatmap;              /* 3d: vertex colours from the weight channels */
} WbJiggleSceneDef;


/* ---- kind cloth (SPEC 4.3) ----
 * The world is metres, y UP (gravity along −y), the floor the plane
 * y = floor_y.  The cloth is a grid of particles; particle (i, j) counts i
 * along the cloth's width (+x) and j along its height: along −z (away
 * from a camera at +z) when the cloth starts horizontal, along −y when it
 * starts vertical, so row j = 0 is the "top" edge and column i = 0 the
 * "left" edge either way.  Grid indices may be negative: −1 is the last. */
#define WB_CLOTH_SCENE_MAX_PINS 64
#define WB_CLOTH_SCENE_MAX_SPHERES 32
#define WB_CLOTH_SCENE_MAX_BOXES 16
#define WB_CLOTH_MAX_GRID_SCENE 1024  /* particles per side (the solver's limit) */

typedef enum WbClothFabricKind {
    WB_CLOTH_FABRIC_CHIFFON, WB_CLOTH_FABRIC_SILK, WB_CLOTH_FABRIC_COTTON,
    WB_CLOTH_FABRIC_WOOL, WB_CLOTH_FABRIC_DENIM, WB_CLOTH_FABRIC_LEATHER
} WbClothFabricKind;   /* the order of WbFabricId (sim/fabric.h); run_cloth.c checks */

typedef enum WbClothSolverKind { WB_CLOTH_SOLVER_PBD, WB_CLOTH_SOLVER_XPBD } WbClothSolverKind;
typedef enum WbClothBendKind { WB_CLOTH_BEND_SKIP_ONE, WB_CLOTH_BEND_DIHEDRAL_ANGLE } WbClothBendKind;
typedef enum WbClothLayout { WB_CLOTH_HORIZONTAL, WB_CLOTH_VERTICAL } WbClothLayout;
typedef enum WbClothPinSet {
    WB_CLOTH_PINS_NONE, WB_CLOTH_PINS_TOP_EDGE, WB_CLOTH_PINS_TOP_CORNERS,
    WB_CLOTH_PINS_CORNERS, WB_CLOTH_PINS_LEFT_EDGE
} WbClothPinSet;

/* A named pinned particle; a `release` event lets it go. */
typedef struct WbClothPinDef {
    char name[WB_NAME_MAX];
    int i, j;                  /* grid indices; negative counts from the end */
} WbClothPinDef;

typedef struct WbClothSphereDef {
    double centre[3];          /* metres */
    double radius;
    WbColor colour;
} WbClothSphereDef;

typedef struct WbClothBoxDef {
    double centre[3];          /* metres, axis aligned */
    double size[3];            /* full extents */
    WbColor colour;
} WbClothBoxDef;

typedef struct WbClothBodyDef {
    bool enabled;              /* the block was given */
    double at[3];              /* floor point under the dress form's axis */
    double scale;              /* of the 1.7 m default form */
    WbColor colour;
} WbClothBodyDef;

typedef struct WbClothWindDef {
    double strength;           /* N/m^2 of pressure; 0 = calm */
    double direction[3];       /* normalized by the solver */
    double bias;               /* mean of the gust factor */
} WbClothWindDef;

typedef struct WbClothCameraDef {
    double target[3];          /* metres */
    double yaw, pitch;         /* degrees: yaw 0 looks from +z, pitch > 0 from above */
    double distance;           /* metres from target (orbit) */
    double fov;                /* vertical field of view, degrees */
    bool eye_set;              /* `eye` given: look from eye at target instead of orbit */
    double eye[3];
} WbClothCameraDef;

typedef struct WbClothSceneDef {
    int grid;                  /* particles along the longer side */
    double size[2];            /* width, height of the sheet, metres */
    double centre[3];          /* where the sheet's centre starts, metres */
    WbClothLayout layout;
    WbClothFabricKind fabric;  /* sets the six parameters, colour and sheen */
    double stiffness, weight, damping, bend_stiffness, friction, wind_response;
    WbClothSolverKind solver;
    WbClothBendKind bending;
    int substeps, iterations;
    bool self_collision;
    double thickness;          /* self-collision distance, m; 0 = 0.6 link lengths */
    double max_stretch;        /* hard limit on structural links; 0 = off */
    double margin;             /* collision skin around bodies, m */
    double gravity;            /* m/s^2 along −y */
    bool floor;
    double floor_y;
    WbClothPinSet pin;
    WbClothPinDef *pins;       /* owned */
    size_t n_pins;
    WbClothBodyDef mannequin;
    WbClothSphereDef *spheres; /* owned */
    size_t n_spheres;
    WbClothBoxDef *boxes;      /* owned */
    size_t n_boxes;
    WbClothWindDef wind;
    WbClothCameraDef camera;
    WbColor colour;            /* front of the cloth (the back is a shade darker) */
    double sheen;              /* grazing-angle lustre, 0..1 */
    double gloss;              /* specular highlight weight, 0..1 */
    WbColor floor_colour;      /* the checker's light squares */
    double settle_speed;       /* m/s: below this everywhere the cloth counts as still */
} WbClothSceneDef;

typedef enum WbEventType {
    WB_EVENT_GRAB, WB_EVENT_RELEASE, WB_EVENT_PIN, WB_EVENT_UNPIN, WB_EVENT_CUT,
    WB_EVENT_RESEED, WB_EVENT_SHAKE, WB_EVENT_CLOTH_RELEASE, WB_EVENT_CLOTH_WIND,
    WB_EVENT_SET, WB_EVENT_TELEPORT, WB_EVENT_RESET
} WbEventType;

/* The kind blocks a `set` event may write into (keys_timeline.c lists which
 * keys of each): the loader validates the value against the key's own row. */
#define WB_SET_KEY_MAX 64

typedef struct WbEvent {
    WbEventType type;
    double time;               /* absolute scene time, seconds */
    int src_line, src_col;     /* where it was written, for run-time errors */
    union {
        struct {               /* grab: take hold at `at`, cursor follows `path` */
            WbPoint at;
            WbLen radius;      /* automatic = photo.radius */
            WbKey *path;       /* owned; sorted by time, all > event time */
            size_t n_path;
        } grab;
        struct {               /* pin: hold the mesh around `at` */
            WbPoint at;
            WbLen radius;      /* automatic = half the grab radius rule */
            char name[WB_NAME_MAX]; /* "" = unnamed */
        } pin;
        struct {               /* unpin: by name, or all when name is "" */
            char name[WB_NAME_MAX];
        } unpin;
        struct {               /* cut (rope): link `link` of rope `rope`, 0-based */
            int rope, link;
        } cut;
        struct {               /* reseed (jiggle): new per-bone character */
            uint32_t seed;
        } reseed;
        struct {               /* shake (jiggle): random velocity kick */
            double span;       /* units/s: each axis += (u - 1/2)*span */
        } shake;
        struct {               /* release (cloth): let a named pin go, "" = every pin */
            char pin[WB_NAME_MAX];
        } cloth_release;
        struct {               /* wind (cloth): blend to a new wind over `ramp` s */
            double strength, direction[3], bias, ramp;
        } cloth_wind;
        struct {               /* set (any kind): ramp a numeric parameter to `to` */
            char key[WB_SET_KEY_MAX]; /* as written, "photo.bounce" */
            size_t offset;     /* of its double inside the kind's block (WbPhotoDef, ...) */
            double to;         /* validated like the key itself */
            double over;       /* seconds; 0 = at once */
            WbEase ease;       /* of the whole ramp (default linear) */
        } set;
        struct {               /* teleport: move the driver by `by` */
            WbPoint by;        /* jiggle, rope: world units; never pixels */
            double by3[3];     /* cloth: metres, with its pins and bodies */
        } teleport;
    } u;
} WbEvent;

/* Where a key was written (line 0: not written), for an error found only
 * when the run opens the file it names: in the scene file, or in a --set. */
typedef struct WbPlace {
    int line, col;
    bool set;
    char source[WB_ERROR_LINE_MAX]; /* a --set's text, for the caret; "" otherwise */
} WbPlace;

typedef struct WbScene {
    char path[WB_PATH_MAX];    /* the scene file as given ("-" for stdin) */
    int version;               /* `wobble:`; WB_SCENE_VERSION */
    WbKind kind;
    uint32_t seed;
    WbOutputDef output;
    WbPhotoDef photo;
    WbPlace photo_image_at, photo_mask_at; /* photo.image and photo.mask */
    WbPlace jiggle_weights_at; /* jiggle.weights */
    WbPlace output_background_at; /* output.background: whether it was written */
    WbRopeSceneDef rope;       /* kind rope */
    WbJiggleSceneDef jiggle;   /* kind jiggle */
    WbClothSceneDef cloth;     /* kind cloth */
    WbEvent *events;           /* owned; sorted by time (stable) */
    size_t n_events;
} WbScene;

/* Fill every field with its documented default (precedence: default < file < --set). */
void wb_scene_default(WbScene *scene);
void wb_scene_free(WbScene *scene);
/* Free only the timeline (events and their paths). */
void wb_scene_free_events(WbScene *scene);

/* Defaults of the rope block and of one rope / obstacle list item. */
void wb_rope_scene_default(WbRopeSceneDef *rope);
void wb_rope_line_default(WbRopeLineDef *line);
void wb_rope_obstacle_default(WbRopeObstacleDef *obstacle);

/* Defaults of the jiggle block. */
void wb_jiggle_scene_default(WbJiggleSceneDef *j);

/* Defaults of the cloth block and of its list items. */
void wb_cloth_scene_default(WbClothSceneDef *c);
void wb_cloth_pin_default(WbClothPinDef *p);
void wb_cloth_sphere_default(WbClothSphereDef *s);
void wb_cloth_box_default(WbClothBoxDef *b);
/* Set the six fabric parameters, colour, sheen and gloss of c from `fabric`
 * (explicit keys written after it win). */
void wb_cloth_fabric_apply(WbClothSceneDef *c, WbClothFabricKind fabric);
/* Particles per side: `grid` along the longer of size[0], size[1], the other
 * side as many as keep the cells square (at least 3). */
void wb_cloth_scene_grid(const WbClothSceneDef *c, int *nx, int *ny);

/* Resolve a length / point to shorter-edge units / normalized units given the
 * image size in pixels. */
double wb_len_resolve(WbLen len, int img_w, int img_h, double automatic_value);
void wb_point_resolve(WbPoint p, int img_w, int img_h, double *x, double *y);

#endif

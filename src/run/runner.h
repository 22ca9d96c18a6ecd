/* runner.h — one scene kind behind a small interface the frame loop drives.
 *
 * The frame loop (frame_loop.c) knows nothing of photos, bones or cloth: it
 * asks the runner to advance the simulation to an absolute step index, to
 * draw the current state, and whether anything is still moving.  A runner
 * (one adapter per kind, run_*.c) owns the kind's solver, its inputs (image,
 * mask) and its view; it turns the scene's definitions into the solver's
 * units and fires the scene's timeline (timeline.h) as solver commands.
 */
#ifndef WB_RUNNER_H
#define WB_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/damage.h"
#include "core/error.h"
#include "core/fields.h"
#include "core/frames.h"
#include "core/image.h"
#include "core/pool.h"
#include "scene/scene.h"

typedef struct WbFrameStats {
    bool moving;
    double max_displacement;   /* the kind's natural length unit (photo: shorter edge) */
    double max_speed;          /* same unit per second */
    uint64_t hash;             /* hash of the solver state: equal hashes, equal states */
    int64_t limited;           /* photo: vertices the fold limit put back since the last row */
    int64_t folded;            /* photo: flat or inverted corner triangles now */
} WbFrameStats;

/* One row of a kind's tracks (wobble export's CSV): a rope node (a = rope,
 * b = node, v = x, y, 0 in metres, y down) or a bone (a = bone, b = 0,
 * v = its offset from rest, world units). */
typedef struct WbTrackRow {
    int a, b;
    double v[3];
} WbTrackRow;

/* The motion a kind exports, as it is now (valid until the next advance). */
typedef struct WbMotion {
    size_t n_points;           /* mesh vertices; 0 when the kind draws no mesh */
    const float *points;       /* 3 per vertex, world units */
    size_t n_tris;
    const uint32_t *tris;      /* 3 per triangle, indices into points */
    size_t n_rows;             /* tracks; 0 when none */
    const WbTrackRow *rows;
    const char *columns;       /* CSV head of a row: "rope,node,x,y,z" or "bone,x,y,z" */
    int row_b;                 /* rows carry column b (rope nodes) */
} WbMotion;

typedef struct WbRunnerOptions {
    int aa;                    /* samples per pixel */
    /* Non-zero (a signal arrived): advance stops within a step, or within
     * one sweep of a long cloth step, and returns WB_E_INTERRUPTED; the
     * state is then fit only to be destroyed.  NULL: never. */
    const volatile sig_atomic_t *stop;
    /* The largest picture read (photo, mask, weight map), in pixels, from
     * its header before decoding; 0 = WB_MAX_PIXELS. */
    int64_t max_pixels;
    /* The most timeline events a scene may hold; 0 = WB_MAX_EVENTS. */
    int64_t max_events;
} WbRunnerOptions;

/* Default of WbRunnerOptions.max_pixels (--max-pixels): 25 megapixels
 * (a 6000x4000 photo) keeps a run's memory under 1 GB. */
#define WB_MAX_PIXELS INT64_C(25000000)

/* Default of WbRunnerOptions.max_events (--max-events): far above any
 * hand-written or generated timeline (the examples hold a few), and a
 * bound on what a scene file can make every step walk through. */
#define WB_MAX_EVENTS INT64_C(100000)

typedef struct WbRunner {
    void *self;
    int width, height;         /* output frame size in pixels */
    double rate;               /* simulation steps per second */
    bool alpha;                /* frames carry meaningful alpha */
    WbStatus (*advance)(void *self, int64_t step, WbError *err);
    bool (*idle)(void *self);  /* settled, and nothing scheduled will move it */
    bool (*changed)(void *self); /* state changed since the last draw */
    /* Draw the current state into out.  The caller leaves the pixels of
     * the images it passes alone between draws: a runner may draw only
     * what changed over what an image holds (the photo view does, for up
     * to two images in turn). */
    WbStatus (*draw)(void *self, WbPool *pool, WbImage *out, WbError *err);
    /* Optional (NULL: everything may have changed): what the last draw
     * changed in its image against what that image held before. */
    void (*damage)(void *self, WbDamage *d);
    void (*stats)(void *self, WbFrameStats *st);
    /* Every value a later step reads (core/fields.h), always in one order:
     * saved by wobble bake, loaded by render --state.  Loaded over a new
     * runner of the same effective scene, it continues exactly as the
     * runner that was saved (the next draw draws everything). */
    void (*fields)(void *self, WbFields *f);
    /* Optional (NULL: nothing to export): the motion as it is now. */
    WbStatus (*motion)(void *self, WbMotion *m, WbError *err);
    void (*destroy)(void *self);
} WbRunner;

/* Build the runner for scene->kind; reads the files the scene names. */
WbStatus wb_runner_create(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt,
                          WbError *err);

/* Number of fixed steps that have happened at the start of frame f: frame f
 * shows the state at time f/fps, after floor(f·rate/fps) steps. */
int64_t wb_runner_step_for_frame(int64_t f, double fps, double rate);

/* The same with output.preroll: frame f shows scene time preroll + f/fps,
 * after floor((f/fps + preroll)·rate) steps — a function of f alone, so a
 * frame range or a chunk starts exactly where the full render has it.  With
 * no pre-roll it is wb_runner_step_for_frame. */
int64_t wb_runner_frame_step(const WbOutputDef *out, int64_t f, double rate);
/* A step (or frame) count from a float: n truncated, NaN and negatives 0,
 * at most WB_RUNNER_MAX_STEPS (2^62, beyond any scene's count), so no
 * conversion leaves int64_t. */
#define WB_RUNNER_MAX_STEPS WB_MAX_STEPS
int64_t wb_runner_steps(double n);

/* Frames in the scene: ceil(duration·fps), at least 1. */
int64_t wb_runner_frame_count(const WbOutputDef *out);

/* Helpers the kinds' runners share (run_*.c). */

/* Output size in pixels for the kinds that draw a world of the given aspect
 * (height / width): output.width and output.height as given; when one is 0
 * it follows from the other and the aspect, rounded to an even number (at
 * least 2, what yuv420 codecs need); when both are 0 the width is 640.
 * Then output.scale (wb_runner_scale_size). */
void wb_runner_output_size(const WbOutputDef *out, double aspect, int *w, int *h);

/* *w × *h times output.scale, each side rounded to an even number (at
 * least 2); unchanged when the scale is 1. */
void wb_runner_scale_size(const WbOutputDef *out, int *w, int *h);

/* A file the run could not read is bad input at the key that names it
 * (photo.image, photo.mask, jiggle.weights): an input error st without a
 * place of its own gets the key's (file:line:col, and the line with a caret
 * when it is in the scene file) and the key's name before its message.
 * Other statuses, and keys not written (at->line 0), pass through. */
/* WB_E_INPUT when the picture at path states a size over the limit of opt
 * (the message names the option that raises it), read from its header
 * (wb_image_header_size) or, for other formats, from what libav states
 * before decoding (wb_image_probe_size); WB_OK when it does not, or when
 * no size can be found (the loader then says what is wrong). */
WbStatus wb_runner_check_pixels(const char *path, const WbRunnerOptions *opt, WbError *err);

/* True (and err set to WB_E_INTERRUPTED) when *stop is set; for the
 * kinds' advance loops. */
bool wb_runner_stopped(const volatile sig_atomic_t *stop, WbError *err);

WbStatus wb_runner_at_key(WbStatus st, const WbScene *scene, const WbPlace *at, const char *key,
                          WbError *err);

WbStatus wb_runner_photo(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt,
                         WbError *err);
/* kind rope (run_rope.c); the scene must outlive the runner. */
WbStatus wb_runner_rope(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt,
                        WbError *err);
/* kind jiggle (run_jiggle.c), views 1d, 2d and 3d; the scene must outlive the
 * runner. */
WbStatus wb_runner_jiggle(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt,
                          WbError *err);
/* kind cloth (run_cloth.c): PBD/XPBD cloth drawn in 3D through raster3d;
 * the scene must outlive the runner. */
WbStatus wb_runner_cloth(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt,
                         WbError *err);

#endif

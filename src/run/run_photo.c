/* run_photo.c — the photo kind behind the runner interface: loads the image
 * and the mask (or segments one), drives the photo simulation by the
 * scene's timeline (run_photo.h), and draws it through its view. */
#include "run/run_photo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/image_load.h"
#include "io/image_seq.h"
#include "render/photo_view.h"
#include "run/runner.h"
#include "run/timeline.h"
#include "sim/mask.h"
#include "sim/photo_fold.h"

/* ---------------------------------------------------------------- drive */

_Static_assert(WB_MAX_PINS == WB_PHOTO_MAX_PINS, "the scene's pin limit is the solver's");
_Static_assert(WB_NAME_MAX == WB_PHOTO_PIN_NAME, "pin names fit the solver's");

struct WbPhotoDrive {
    WbPhotoSim *sim;
    WbTimeline tl;
    double rate;
    int img_w, img_h;
    double sw, sh;             /* mesh extent, shorter-edge units */
    WbKey *path;               /* the active grab's keys, in mesh units */
    size_t n_path;
    double grab_time, gx, gy;  /* where and when its cursor starts */
    WbPhotoDef base, live;     /* the photo block as given, and with its ramps applied */
    int64_t ramps_end;         /* step from which no ramp changes anything (0: none) */
};

static double min_edge(const WbPhotoDrive *d)
{
    return d->img_w < d->img_h ? d->img_w : d->img_h;
}

static double len_units(const WbPhotoDrive *d, WbLen len)
{
    return len.px ? len.value / min_edge(d) : len.value;
}

static void point_units(const WbPhotoDrive *d, WbPoint p, double *x, double *y)
{
    *x = (p.px_x ? p.x / d->img_w : p.x) * d->sw;
    *y = (p.px_y ? p.y / d->img_h : p.y) * d->sh;
}

static WbStatus check_def(const WbPhotoDef *def, WbError *err)
{
    if (!(def->frequency > 0) || !isfinite(def->frequency))
        return wb_error_set(err, WB_E_INPUT, "photo.frequency %g must be > 0 Hz", def->frequency);
    if (!(def->elasticity >= -1 && def->elasticity <= 1))
        return wb_error_set(err, WB_E_INPUT, "photo.elasticity %g is outside [-1, 1]",
                            def->elasticity);
    if (!(def->bounce >= 0 && def->bounce <= 1))
        return wb_error_set(err, WB_E_INPUT, "photo.bounce %g is outside [0, 1]", def->bounce);
    if (!(def->rate > 0) || !isfinite(def->rate))
        return wb_error_set(err, WB_E_INPUT, "photo.rate %g must be > 0 steps/s", def->rate);
    if (!(def->settle_epsilon >= 0) || !isfinite(def->grip))
        return wb_error_set(err, WB_E_INPUT, "photo.settle_epsilon and photo.grip must be finite");
    return WB_OK;
}

/* Check the timeline before running it: pins at most WB_MAX_PINS at once,
 * unpin names that exist, times in order. */
static WbStatus check_events(const WbEvent *ev, size_t n, WbError *err)
{
    char names[WB_MAX_PINS][WB_NAME_MAX];
    int pins = 0;
    for (size_t i = 0; i < n; i++) {
        const WbEvent *e = &ev[i];
        if (!isfinite(e->time) || e->time < 0 || (i > 0 && e->time < ev[i - 1].time))
            return wb_error_set(err, WB_E_INPUT,
                                "timeline event at line %d: time %g is negative or out of order",
                                e->src_line, e->time);
        if (e->type == WB_EVENT_PIN) {
            if (pins == WB_MAX_PINS)
                return wb_error_set(err, WB_E_INPUT,
                                    "timeline event at line %d: more than %d pins at once; "
                                    "unpin one first",
                                    e->src_line, WB_MAX_PINS);
            memcpy(names[pins++], e->u.pin.name, WB_NAME_MAX);
        } else if (e->type == WB_EVENT_UNPIN) {
            if (!e->u.unpin.name[0]) {
                pins = 0;
                continue;
            }
            int kept = 0;
            for (int k = 0; k < pins; k++)
                if (strcmp(names[k], e->u.unpin.name) != 0)
                    memcpy(names[kept++], names[k], WB_NAME_MAX);
            if (kept == pins)
                return wb_error_set(err, WB_E_INPUT,
                                    "timeline event at line %d: unpin '%s', but no pin of that "
                                    "name is set",
                                    e->src_line, e->u.unpin.name);
            pins = kept;
        }
    }
    return WB_OK;
}

/* The grab's cursor at the end of a step: the timeline's keyed path. */
static void drive_cursor(void *ctx, int64_t step, double *x, double *y)
{
    const WbPhotoDrive *d = ctx;
    double at[2];
    wb_timeline_keys_at(d->path, d->n_path, d->grab_time, d->gx, d->gy,
                        wb_timeline_step_time(step, d->rate), at);
    *x = at[0];
    *y = at[1];
}

/* The grab's path and start, in mesh units, for drive_cursor. */
static void take_path(WbPhotoDrive *d, const WbEvent *ev)
{
    const WbKey *path = ev->u.grab.path;
    d->n_path = ev->u.grab.n_path;
    for (size_t j = 0; j < d->n_path; j++) {
        d->path[j] = path[j];
        d->path[j].to = (WbPoint){0};
        point_units(d, path[j].to, &d->path[j].to.x, &d->path[j].to.y);
    }
    d->grab_time = ev->time;
    point_units(d, ev->u.grab.at, &d->gx, &d->gy);
}

static void fire(WbPhotoDrive *d, const WbEvent *ev)
{
    switch (ev->type) {
    case WB_EVENT_GRAB: {
        take_path(d, ev);
        WbPhotoGrab g = {
            .x = d->gx,
            .y = d->gy,
            .radius_auto = ev->u.grab.radius.automatic,
            .radius = len_units(d, ev->u.grab.radius),
            .cursor = drive_cursor,
            .ctx = d,
        };
        wb_photo_sim_grab(d->sim, &g);
        break;
    }
    case WB_EVENT_RELEASE:
        wb_photo_sim_release(d->sim);
        break;
    case WB_EVENT_PIN: {
        WbPhotoPin pin = {
            .radius_auto = ev->u.pin.radius.automatic,
            .radius = len_units(d, ev->u.pin.radius),
            .name = ev->u.pin.name,
        };
        point_units(d, ev->u.pin.at, &pin.x, &pin.y);
        wb_photo_sim_pin(d->sim, &pin);
        break;
    }
    case WB_EVENT_UNPIN:
        wb_photo_sim_unpin(d->sim, ev->u.unpin.name);
        break;
    case WB_EVENT_CUT:
    case WB_EVENT_RESEED:
    case WB_EVENT_SHAKE:
    case WB_EVENT_CLOTH_RELEASE:
    case WB_EVENT_CLOTH_WIND:
        break;   /* rope / jiggle / cloth actions; the loader keeps them out of photo scenes */
    case WB_EVENT_SET:
        break;   /* ramps: wb_photo_drive_advance applies them step by step */
    case WB_EVENT_TELEPORT:
    case WB_EVENT_RESET:
        break;   /* other kinds' actions */
    }
}

WbStatus wb_photo_drive_create(WbPhotoDrive **out, const WbPhotoDef *def, const WbEvent *events,
                               size_t n, int img_w, int img_h, const float *mask_px,
                               WbError *err)
{
    *out = NULL;
    WbStatus st = check_def(def, err);
    if (!st)
        st = check_events(events, n, err);
    if (st)
        return st;
    WbPhotoDrive *d = calloc(1, sizeof *d);
    if (!d)
        return wb_error_set(err, WB_E_IO, "out of memory for the photo simulation");
    d->tl = wb_timeline_rate(events, n, def->rate);
    d->base = d->live = *def;
    d->ramps_end = wb_timeline_ramps_end(&d->tl);
    d->rate = def->rate;
    d->img_w = img_w;
    d->img_h = img_h;
    if (img_w > 0 && img_h > 0) {
        d->sw = img_w / min_edge(d);
        d->sh = img_h / min_edge(d);
    }
    WbPhotoSimDef sd = {
        .grid = def->grid,
        .frequency = def->frequency,
        .elasticity = def->elasticity,
        .bounce = def->bounce,
        .integrator = def->integrator == WB_INTEGRATOR_EXACT ? WB_SPRING_EXACT : WB_SPRING_EULER,
        .rate = def->rate,
        .radius_auto = def->radius.automatic,
        .radius = len_units(d, def->radius),
        .grip = def->grip,
        .settle_epsilon = def->settle_epsilon,
        .fold_limit = def->fold_limit,
    };
    size_t longest = 0;
    for (size_t i = 0; i < n; i++) {
        sd.grabs |= events[i].type == WB_EVENT_GRAB;
        sd.pins |= events[i].type == WB_EVENT_PIN;
        if (events[i].type == WB_EVENT_GRAB && events[i].u.grab.n_path > longest)
            longest = events[i].u.grab.n_path;
    }
    if (longest > 0 && !(d->path = malloc(longest * sizeof *d->path))) {
        free(d);
        return wb_error_set(err, WB_E_IO, "out of memory for a %d-cell photo grid", def->grid);
    }
    st = wb_photo_sim_create(&d->sim, &sd, img_w, img_h, mask_px, err);
    if (st) {
        wb_photo_drive_destroy(d);
        return st;
    }
    *out = d;
    return WB_OK;
}

void wb_photo_drive_destroy(WbPhotoDrive *d)
{
    if (!d)
        return;
    wb_photo_sim_destroy(d->sim);
    free(d->path);
    free(d);
}

/* The ramped spring of step n1 (the n1-th step, timeline.h's index). */
static WbStatus ramp_spring(WbPhotoDrive *d, int64_t n1, WbError *err)
{
    wb_timeline_ramp_block(&d->tl, &d->base, &d->live, n1);
    const WbPhotoDef *l = &d->live;
    if (!wb_photo_sim_set_spring(d->sim, l->frequency, l->elasticity, l->bounce, l->grip))
        return wb_error_set(err, WB_E_INPUT,
                            "a ramp takes the photo spring to %g Hz at elasticity %g and bounce "
                            "%g at %.4f s, where Euler integration at photo.rate %g blows up: "
                            "use integrator: exact or a higher photo.rate", l->frequency,
                            l->elasticity, l->bounce, (double)n1 / d->rate, d->rate);
    return WB_OK;
}

/* Fire the events due up to `step`: an event fires before the step it
 * falls on (before step 1 at time 0), so the simulation runs up to it
 * without the divergence check first.  While a ramp runs, every step gets
 * its own spring. */
static WbStatus drive_events(WbPhotoDrive *d, int64_t step, WbError *err)
{
    for (;;) {
        int64_t n = wb_photo_sim_steps(d->sim);
        int64_t at = wb_timeline_next_step(&d->tl);
        at = at < 1 ? 1 : at;
        if (n + 1 <= d->ramps_end && n + 1 <= step) {
            while (wb_timeline_next_step(&d->tl) <= n + 1)
                fire(d, wb_timeline_due(&d->tl, n + 1));
            WbStatus st = ramp_spring(d, n + 1, err);
            if (st)
                return st;
            if (n + 1 == step)
                break;
            wb_photo_sim_run(d->sim, n + 1);
            continue;
        }
        if (at > step)
            break;
        wb_photo_sim_run(d->sim, at - 1);
        if (wb_photo_sim_steps(d->sim) + 1 <= d->ramps_end)
            continue;   /* a ramp begins before the event: step by step from here */
        fire(d, wb_timeline_due(&d->tl, at));
    }
    return WB_OK;
}

WbStatus wb_photo_drive_advance(WbPhotoDrive *d, int64_t step, WbError *err)
{
    /* The check runs once, at the end, as for a single advance. */
    WbStatus st = drive_events(d, step, err);
    return st ? st : wb_photo_sim_advance(d->sim, step, err);
}

void wb_photo_drive_fields(WbPhotoDrive *d, WbFields *f)
{
    wb_fields_size(f, "photo.events_fired", &d->tl.next);
    wb_photo_sim_fields(d->sim, f, drive_cursor, d);
    if (!f->loading)
        return;
    if (d->tl.next > d->tl.n)
        d->tl.next = d->tl.n;
    /* the cursor's path is the last grab's among the events fired */
    for (size_t i = d->tl.next; i-- > 0;) {
        if (d->tl.events[i].type == WB_EVENT_GRAB) {
            take_path(d, &d->tl.events[i]);
            break;
        }
    }
}

/* Steps run between two looks at the stop flag: a multiple of the
 * solver's fused run (16 steps), a fraction of a second at the largest
 * grid. */
#define PHOTO_SLICE 32

WbStatus wb_photo_drive_advance_until(WbPhotoDrive *d, int64_t step,
                                      const volatile sig_atomic_t *stop, WbError *err)
{
    /* Slices run unchecked, as the runs up to an event do: the same steps
     * in the same order (fused runs are bit for bit single steps), so the
     * same state.  The last step is left to the checked advance. */
    for (int64_t at = wb_photo_sim_steps(d->sim); stop && at < step - 1;) {
        if (wb_runner_stopped(stop, err))
            return WB_E_INTERRUPTED;
        at = step - 1 - at > PHOTO_SLICE ? at + PHOTO_SLICE : step - 1;
        WbStatus st = drive_events(d, at, err);
        if (st)
            return st;
        wb_photo_sim_run(d->sim, at);
    }
    return wb_photo_drive_advance(d, step, err);
}

bool wb_photo_drive_idle(const WbPhotoDrive *d)
{
    return wb_photo_sim_idle(d->sim) && wb_timeline_done(&d->tl) &&
           wb_photo_sim_steps(d->sim) >= d->ramps_end;
}

WbPhotoSim *wb_photo_drive_sim(const WbPhotoDrive *d)
{
    return d->sim;
}

/* ---------------------------------------------------------------- runner */

typedef struct PhotoRun {
    const volatile sig_atomic_t *stop; /* WbRunnerOptions.stop */
    WbImage image;
    float *mask;            /* image-sized weights or NULL */
    WbPhotoDrive *drive;
    WbPhotoSim *sim;        /* the drive's */
    WbPhotoView view;
    bool view_ready;
    WbImageSeq *seq;        /* an animated photo's frames, or NULL for a still */
    int64_t shown;          /* the frame of seq the view's texture holds */
    double rate;            /* simulation steps per second */
    uint64_t drawn_generation;
    bool drawn_once;
    int64_t limited_reported; /* the sim's fold-limit count at the last stats row */
} PhotoRun;

/* Bilinear resample of a w×h weight map to W×H (pixel centres aligned), so a
 * mask made at another resolution than the photo still lines up. */
static float *resample(const float *src, int w, int h, int W, int H)
{
    float *dst = malloc(sizeof *dst * (size_t)W * (size_t)H);
    if (!dst)
        return NULL;
    for (int y = 0; y < H; y++) {
        double sy = ((double)y + 0.5) * h / H - 0.5;
        int y0 = sy < 0 ? 0 : (int)sy;
        int y1 = y0 + 1 < h ? y0 + 1 : h - 1;
        double fy = sy < 0 ? 0 : sy - y0;
        for (int x = 0; x < W; x++) {
            double sx = ((double)x + 0.5) * w / W - 0.5;
            int x0 = sx < 0 ? 0 : (int)sx;
            int x1 = x0 + 1 < w ? x0 + 1 : w - 1;
            double fx = sx < 0 ? 0 : sx - x0;
            double a = src[(size_t)y0 * w + x0] * (1 - fx) + src[(size_t)y0 * w + x1] * fx;
            double b = src[(size_t)y1 * w + x0] * (1 - fx) + src[(size_t)y1 * w + x1] * fx;
            dst[(size_t)y * W + x] = (float)(a * (1 - fy) + b * fy);
        }
    }
    return dst;
}

static WbStatus load_mask(PhotoRun *p, const WbPhotoDef *def, WbError *err)
{
    if (def->segment.enabled) {
        double x, y;
        wb_point_resolve(def->segment.at, p->image.w, p->image.h, &x, &y);
        return wb_mask_segment(&p->image, x, y, def->segment.tolerance, &p->mask, err);
    }
    if (!def->mask[0])
        return WB_OK;
    float *m = NULL;
    int w = 0, h = 0;
    WbStatus st = wb_mask_load(def->mask, &m, &w, &h, err);
    if (st)
        return st;
    if (w == p->image.w && h == p->image.h) {
        p->mask = m;
        return WB_OK;
    }
    p->mask = resample(m, w, h, p->image.w, p->image.h);
    free(m);
    if (!p->mask)
        return wb_error_set(err, WB_E_IO, "out of memory resampling mask '%s'", def->mask);
    return WB_OK;
}

/* Points given in pixels can only be checked once the image size is known. */
static WbStatus check_point(const WbScene *scene, const WbImage *img, WbPoint p, double lo, double hi,
                            int line, int col, const char *what, WbError *err)
{
    double x, y;
    wb_point_resolve(p, img->w, img->h, &x, &y);
    if (x >= lo && x <= hi && y >= lo && y <= hi)
        return WB_OK;
    return wb_error_at(err, WB_E_INPUT, scene->path, line, col,
                       "%s [%g%s, %g%s] lies outside the %dx%d image", what,
                       p.x, p.px_x ? "px" : "", p.y, p.px_y ? "px" : "",
                       img->w, img->h);
}

static WbStatus check_points(const WbScene *scene, const WbImage *img, WbError *err)
{
    if (scene->photo.segment.enabled) {
        WbStatus st = check_point(scene, img, scene->photo.segment.at, 0, 1, 0, 0,
                                  "photo.segment.at", err);
        if (st)
            return st;
    }
    for (size_t i = 0; i < scene->n_events; i++) {
        const WbEvent *e = &scene->events[i];
        WbStatus st = WB_OK;
        if (e->type == WB_EVENT_GRAB) {
            st = check_point(scene, img, e->u.grab.at, 0, 1, e->src_line, e->src_col, "grab point", err);
            for (size_t k = 0; !st && k < e->u.grab.n_path; k++)
                st = check_point(scene, img, e->u.grab.path[k].to, -10, 10, e->src_line, e->src_col,
                                 "path point", err);
        } else if (e->type == WB_EVENT_PIN) {
            st = check_point(scene, img, e->u.pin.at, 0, 1, e->src_line, e->src_col, "pin point", err);
        }
        if (st)
            return st;
    }
    return WB_OK;
}

static WbStatus photo_advance(void *self, int64_t step, WbError *err)
{
    PhotoRun *p = self;
    return wb_photo_drive_advance_until(p->drive, step, p->stop, err);
}

static void photo_fields(void *self, WbFields *f)
{
    PhotoRun *p = self;
    wb_photo_drive_fields(p->drive, f);
}

static bool photo_idle(void *self)
{
    PhotoRun *p = self;
    return wb_photo_drive_idle(p->drive);
}

/* An animated photo plays on the simulation's clock: the frame due at the
 * time of the steps taken (image_seq.h: the last frame whose timestamp is
 * at or before it, looping). */
static WbStatus seq_due(PhotoRun *p, int64_t *index, WbError *err)
{
    double t = (double)wb_photo_sim_steps(p->sim) / p->rate;
    return wb_image_seq_seek(p->seq, t, index, err);
}

static bool photo_changed(void *self)
{
    PhotoRun *p = self;
    if (p->seq) {
        WbError e;
        int64_t due;
        if (seq_due(p, &due, &e) || due != p->shown)
            return true;    /* (a failure is reported by the draw) */
    }
    return !p->drawn_once || wb_photo_sim_generation(p->sim) != p->drawn_generation;
}

/* The texture of an animated photo: the frame due now. */
static WbStatus update_texture(PhotoRun *p, WbError *err)
{
    int64_t due;
    WbStatus st = seq_due(p, &due, err);
    if (st || due == p->shown)
        return st;
    const WbImage *img;
    st = wb_image_seq_image(p->seq, &img, err);
    if (!st)
        st = wb_photo_view_set_image(&p->view, img, err);
    if (!st)
        p->shown = due;
    return st;
}

static WbStatus photo_draw(void *self, WbPool *pool, WbImage *out, WbError *err)
{
    PhotoRun *p = self;
    const WbPhotoState *s = wb_photo_sim_state(p->sim);
    WbStatus st = p->seq ? update_texture(p, err) : WB_OK;
    if (st)
        return st;
    st = wb_photo_view_draw(&p->view, pool, s->x, s->y, s->rx, s->ry, s->mask, out, err);
    p->drawn_generation = wb_photo_sim_generation(p->sim);
    p->drawn_once = true;
    return st;
}

static void photo_damage(void *self, WbDamage *d)
{
    PhotoRun *p = self;
    wb_photo_view_damage(&p->view, d);
}

static void photo_stats(void *self, WbFrameStats *st)
{
    PhotoRun *p = self;
    WbPhotoStats ps;
    wb_photo_sim_stats(p->sim, &ps);
    st->moving = ps.moving;
    st->max_displacement = ps.max_displacement;
    st->max_speed = ps.max_speed;
    st->hash = wb_photo_sim_hash(p->sim);
    st->limited = ps.limited - p->limited_reported;
    p->limited_reported = ps.limited;
    st->folded = wb_photo_fold_count(wb_photo_sim_state(p->sim));
}

static void photo_destroy(void *self)
{
    PhotoRun *p = self;
    if (!p)
        return;
    if (p->view_ready)
        wb_photo_view_free(&p->view);
    wb_photo_drive_destroy(p->drive);
    wb_image_seq_close(p->seq);
    free(p->mask);
    wb_image_free(&p->image);
    free(p);
}

/* The frame size: output.width × output.height; a 0 side follows the other
 * and the photo's aspect (rounded to even, as yuv420 codecs need), both 0
 * the photo's own size; then output.scale. */
static void photo_size(const WbOutputDef *out, const WbImage *img, int *w, int *h)
{
    *w = out->width;
    *h = out->height;
    if (!*w && !*h) {
        *w = img->w;
        *h = img->h;
    } else if (img->w > 0 && img->h > 0 && !*w) {
        *w = 2 * (int)fmax(1.0, round(*h * (double)img->w / img->h / 2.0));
    } else if (img->w > 0 && img->h > 0 && !*h) {
        *h = 2 * (int)fmax(1.0, round(*w * (double)img->h / img->w / 2.0));
    }
    wb_runner_scale_size(out, w, h);
}

/* photo.edge, as the view draws it. */
static WbEdgeMode edge_mode(WbPhotoEdge e)
{
    switch (e) {
    case WB_PHOTO_EDGE_MIRROR: return WB_EDGE_MIRROR;
    case WB_PHOTO_EDGE_TRANSPARENT: return WB_EDGE_NONE;
    case WB_PHOTO_EDGE_COLOR: return WB_EDGE_COLOR;
    case WB_PHOTO_EDGE_CLAMP: break;
    }
    return WB_EDGE_CLAMP;
}

WbStatus wb_runner_photo(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt, WbError *err)
{
    const WbPhotoDef *def = &scene->photo;
    PhotoRun *p = calloc(1, sizeof *p);
    if (!p)
        return wb_error_set(err, WB_E_IO, "out of memory");
    p->stop = opt->stop;
    bool has_alpha = false;
    WbStatus st = wb_runner_check_pixels(def->image, opt, err);
    if (!st)
        st = wb_image_load(def->image, &p->image, &has_alpha, err);
    if (!st)
        st = wb_image_seq_open(&p->seq, def->image,
                               opt->max_pixels > 0 ? opt->max_pixels : WB_MAX_PIXELS, err);
    st = wb_runner_at_key(st, scene, &scene->photo_image_at, "photo.image", err);
    p->rate = def->rate;
    if (!st)
        st = check_points(scene, &p->image, err);
    if (!st && def->mask[0] && !def->segment.enabled)
        st = wb_runner_at_key(wb_runner_check_pixels(def->mask, opt, err), scene,
                              &scene->photo_mask_at, "photo.mask", err);
    if (!st)
        st = wb_runner_at_key(load_mask(p, def, err), scene, &scene->photo_mask_at, "photo.mask", err);
    if (!st)
        st = wb_photo_drive_create(&p->drive, def, scene->events, scene->n_events, p->image.w,
                                   p->image.h, p->mask, err);
    if (!st) {
        p->sim = wb_photo_drive_sim(p->drive);
        /* No frame of this output shows a fold (sim/photo_sim.h). */
        wb_photo_sim_fold_frames(p->sim, scene->output.fps, scene->output.preroll);
    }
    int w, h;
    photo_size(&scene->output, &p->image, &w, &h);
    /* A photo's own alpha shows through a background left unset; a
     * background given in the scene or a --set is painted under it. */
    const WbPlace *bg = &scene->output_background_at;
    bool transparent = scene->output.transparent || (has_alpha && !bg->line && !bg->set);
    /* The still background under the mask (core/inpaint.h). */
    WbInpaintDef fill = {.margin = WB_INPAINT_MARGIN,
                         .flat = def->fill == WB_PHOTO_FILL_COLOR,
                         .color = def->fill_color};
    if (!st) {
        WbPhotoViewDef vd = {
            .width = w,
            .height = h,
            .samples = opt->aa,
            .fit = scene->output.fit,
            .background = scene->output.background,
            .transparent = transparent,
            .image = &p->image,
            .grid = def->grid,
            .mask = p->mask,
            .fill = def->fill == WB_PHOTO_FILL_NONE ? NULL : &fill,
            .edge = edge_mode(def->edge),
            .edge_color = def->edge_color,
        };
        st = wb_photo_view_init(&p->view, &vd, err);
        p->view_ready = st == WB_OK;
    }
    if (st) {
        photo_destroy(p);
        return st;
    }
    *r = (WbRunner){
        .self = p,
        .width = w,
        .height = h,
        .rate = def->rate,
        .alpha = transparent,
        .advance = photo_advance,
        .idle = photo_idle,
        .changed = photo_changed,
        .draw = photo_draw,
        .damage = photo_damage,
        .stats = photo_stats,
        .fields = photo_fields,
        .destroy = photo_destroy,
    };
    return WB_OK;
}

/* run_photo.c — the photo kind behind the runner interface: loads the image
 * and the mask (or segments one), builds the photo simulation and its view. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/runner.h"
#include "io/image_load.h"
#include "render/photo_view.h"
#include "sim/mask.h"
#include "sim/photo_sim.h"

typedef struct PhotoRun {
    WbImage image;
    float *mask;            /* image-sized weights or NULL */
    WbPhotoSim *sim;
    WbPhotoView view;
    bool view_ready;
    uint64_t drawn_generation;
    bool drawn_once;
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
    return wb_photo_sim_advance(p->sim, step, err);
}

static bool photo_idle(void *self)
{
    PhotoRun *p = self;
    return wb_photo_sim_idle(p->sim);
}

static bool photo_changed(void *self)
{
    PhotoRun *p = self;
    return !p->drawn_once || wb_photo_sim_generation(p->sim) != p->drawn_generation;
}

static WbStatus photo_draw(void *self, WbPool *pool, WbImage *out, WbError *err)
{
    PhotoRun *p = self;
    const WbPhotoState *s = wb_photo_sim_state(p->sim);
    WbStatus st = wb_photo_view_draw(&p->view, pool, s->x, s->y, s->rx, s->ry, s->mask, out, err);
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
}

static void photo_destroy(void *self)
{
    PhotoRun *p = self;
    if (!p)
        return;
    if (p->view_ready)
        wb_photo_view_free(&p->view);
    wb_photo_sim_destroy(p->sim);
    free(p->mask);
    wb_image_free(&p->image);
    free(p);
}

WbStatus wb_runner_photo(WbRunner *r, const WbScene *scene, const WbRunnerOptions *opt, WbError *err)
{
    const WbPhotoDef *def = &scene->photo;
    PhotoRun *p = calloc(1, sizeof *p);
    if (!p)
        return wb_error_set(err, WB_E_IO, "out of memory");
    bool has_alpha = false;
    WbStatus st = wb_runner_at_key(wb_image_load(def->image, &p->image, &has_alpha, err), scene,
                         &scene->photo_image_at, "photo.image", err);
    if (!st)
        st = check_points(scene, &p->image, err);
    if (!st)
        st = wb_runner_at_key(load_mask(p, def, err), scene, &scene->photo_mask_at, "photo.mask", err);
    if (!st)
        st = wb_photo_sim_create(&p->sim, def, scene->events, scene->n_events, p->image.w,
                                 p->image.h, p->mask, err);
    int w = scene->output.width ? scene->output.width : p->image.w;
    int h = scene->output.height ? scene->output.height : p->image.h;
    if (!st) {
        WbPhotoViewDef vd = {
            .width = w,
            .height = h,
            .samples = opt->aa,
            .fit = scene->output.fit,
            .background = scene->output.background,
            .transparent = scene->output.transparent,
            .image = &p->image,
            .grid = def->grid,
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
        .alpha = scene->output.transparent || has_alpha,
        .advance = photo_advance,
        .idle = photo_idle,
        .changed = photo_changed,
        .draw = photo_draw,
        .damage = photo_damage,
        .stats = photo_stats,
        .destroy = photo_destroy,
    };
    return WB_OK;
}

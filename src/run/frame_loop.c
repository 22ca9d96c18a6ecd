/* frame_loop.c — the frame loop: runner → frames → sink.
 *
 * Clock: frame f shows the simulation at time f/fps (plus output.preroll),
 * i.e. after floor(f·rate/fps) fixed steps of 1/rate seconds.  The simulation never
 * depends on the frame rate, so 24, 30 and 60 fps renders show the same
 * motion.  A range [first, end) fast-forwards the solver to frame `first`
 * without drawing; chunks rendered separately concatenate to the single
 * render.  With output.motion_blur a shown frame is instead the average of
 * its sub-frame samples (blur.h), the last of which is the frame's own step.
 *
 * Pipelining: frames are drawn into two buffers in turn and handed to a
 * writer thread, which writes frame n (render: converts and encodes it,
 * wb_sink_write; check: compares it with its golden) while the pool draws
 * frame n+1; the renderer hides behind the encoder instead of taking turns
 * with it.  Each frame goes with what its draw changed in its buffer (the
 * runner's damage, when it knows), so the sink converts only that.  The
 * writer sees the same frames in the same order, from one thread at a
 * time, so the output bytes do not change.  A write error surfaces at the
 * next hand-over or at the end.
 */
#include "run/frame_loop.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "run/blur.h"

/* The writer thread and its one-frame mailbox. */
typedef struct Writer {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    WbFrameWrite write;
    void *write_self;
    const WbImage *frame;      /* handed over and not yet written, or NULL */
    int64_t number;            /* its frame number */
    const WbDamage *damage;    /* what changed in it (wb_sink_write) */
    bool quit;
    WbStatus st;               /* the first failed write, sticky */
    WbError err;
} Writer;

static void *writer_main(void *arg)
{
    Writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->frame && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->frame)
            break;
        const WbImage *f = w->frame;
        const WbDamage *d = w->damage;
        int64_t number = w->number;
        bool skip = w->st != WB_OK;
        pthread_mutex_unlock(&w->mu);
        WbError err;
        wb_error_clear(&err);
        WbStatus st = skip ? WB_OK : w->write(w->write_self, number, f, d, &err);
        pthread_mutex_lock(&w->mu);
        if (st && !w->st) {
            w->st = st;
            w->err = err;
        }
        w->frame = NULL;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static WbStatus writer_start(Writer *w, WbFrameWrite write, void *self, WbError *err)
{
    memset(w, 0, sizeof *w);
    w->write = write;
    w->write_self = self;
    wb_error_clear(&w->err);
    if (pthread_mutex_init(&w->mu, NULL))
        return wb_error_set(err, WB_E_IO, "cannot create the writer lock");
    if (pthread_cond_init(&w->cv, NULL)) {
        pthread_mutex_destroy(&w->mu);
        return wb_error_set(err, WB_E_IO, "cannot create the writer condition");
    }
    if (pthread_create(&w->thread, NULL, writer_main, w)) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        return wb_error_set(err, WB_E_IO, "cannot start the writer thread");
    }
    return WB_OK;
}

/* Wait until the writer holds no frame; its sticky status. */
static WbStatus writer_wait(Writer *w, WbError *err)
{
    pthread_mutex_lock(&w->mu);
    while (w->frame)
        pthread_cond_wait(&w->cv, &w->mu);
    WbStatus st = w->st;
    if (st)
        *err = w->err;
    pthread_mutex_unlock(&w->mu);
    return st;
}

/* Hand `frame` (number f) over with what changed in it since it was last
 * handed over (both must stay unchanged until the next writer_wait). */
static WbStatus writer_put(Writer *w, int64_t f, const WbImage *frame, const WbDamage *damage,
                           WbError *err)
{
    WbStatus st = writer_wait(w, err);
    if (st)
        return st;
    pthread_mutex_lock(&w->mu);
    w->frame = frame;
    w->number = f;
    w->damage = damage;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return WB_OK;
}

/* Write what is pending, stop the thread; the first write error if any. */
static WbStatus writer_stop(Writer *w, WbError *err)
{
    WbStatus st = writer_wait(w, err);
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    return st;
}

/* "frame N: " in front of a solver's message, so the user knows where. */
static void prefix_frame(WbError *err, int64_t f)
{
    char head[32];
    int n = snprintf(head, sizeof head, "frame %lld: ", (long long)f);
    size_t len = strlen(err->msg);
    if (n <= 0 || (size_t)n + len >= sizeof err->msg)
        len = sizeof err->msg - (size_t)n - 1;
    memmove(err->msg + n, err->msg, len);
    memcpy(err->msg, head, (size_t)n);
    err->msg[(size_t)n + len] = '\0';
}

/* The buffer frame to hand over, in *last.  A still state is not
 * re-rasterized: the last frame is sent again, unchanged since the writer
 * last had it.  A new one goes to the buffer the writer is not reading.
 * *damage: what changed in it since it was last handed over. */
static WbStatus draw_next(const WbFrameLoop *fl, bool *drawn, int *last, const WbDamage **damage,
                          WbError *err)
{
    static const WbDamage unchanged = {.kind = WB_DAMAGE_NONE};
    const WbRunner *run = fl->runner;
    *damage = &unchanged;
    if (*drawn && !run->changed(run->self))
        return WB_OK;
    WbStatus st = run->draw(run->self, fl->pool, &fl->frames[1 - *last], err);
    if (st)
        return st;
    *last = 1 - *last;
    *drawn = true;
    *damage = &fl->damage[*last];
    if (run->damage)
        run->damage(run->self, &fl->damage[*last]);
    else
        fl->damage[*last].kind = WB_DAMAGE_ALL;
    return WB_OK;
}

/* Motion blur (blur.h): frame f's samples averaged into the buffer the
 * writer is not reading; an unchanged average sends the last frame again. */
static WbStatus blur_next(const WbFrameLoop *fl, WbBlur *blur, int64_t f, bool *drawn, int *last,
                          const WbDamage **damage, WbError *err)
{
    static const WbDamage unchanged = {.kind = WB_DAMAGE_NONE};
    bool changed;
    WbStatus st = wb_blur_frame(blur, fl->runner, fl->pool, fl->output, f,
                                &fl->frames[1 - *last], &changed, err);
    if (st) {
        prefix_frame(err, f);
        return st;
    }
    *damage = &unchanged;
    if (*drawn && !changed)
        return WB_OK;
    *last = 1 - *last;
    *drawn = true;
    fl->damage[*last].kind = WB_DAMAGE_ALL;
    *damage = &fl->damage[*last];
    return WB_OK;
}

/* After frame f (at time t) was handed over: its stats row, the progress. */
static void report(const WbFrameLoop *fl, int64_t f, double t)
{
    if (fl->stats) {
        WbFrameStats fs = {0};
        fl->runner->stats(fl->runner->self, &fs);
        fprintf(fl->stats, "%lld,%.6f,%d,%.9g,%.9g,%016llx,%lld,%lld\n", (long long)f, t,
                fs.moving ? 1 : 0, fs.max_displacement, fs.max_speed, (unsigned long long)fs.hash,
                (long long)fs.limited, (long long)fs.folded);
    }
    if (fl->progress)
        fl->progress(fl->ctx, f);
}

static WbStatus blur_start(const WbFrameLoop *fl, WbBlur **blur, WbError *err)
{
    *blur = NULL;
    if (!wb_blur_enabled(fl->output))
        return WB_OK;
    WbBlur *b = malloc(sizeof *b);
    if (!b)
        return wb_error_set(err, WB_E_IO, "out of memory for motion blur");
    WbStatus st = wb_blur_init(b, fl->output, fl->runner->width, fl->runner->height, err);
    if (st) {
        free(b);
        return st;
    }
    *blur = b;
    return WB_OK;
}

static void blur_stop(WbBlur *b)
{
    if (b)
        wb_blur_free(b);
    free(b);
}

WbStatus wb_frame_loop_run(const WbFrameLoop *fl, WbFrameLoopResult *res, WbError *err)
{
    const WbOutputDef *out = fl->output;
    const WbRunner *run = fl->runner;
    double rate = run->rate;
    double idle_since = -1;
    bool drawn = false;
    int last = 1;              /* the buffer holding the last drawn frame */
    Writer wr;
    *res = (WbFrameLoopResult){.settled_at = -1};
    int64_t every = fl->every > 1 ? fl->every : 1;
    WbBlur *blur = NULL;       /* output.motion_blur, or NULL */
    WbStatus st = blur_start(fl, &blur, err);
    if (st)
        return st;
    if ((st = writer_start(&wr, fl->write, fl->write_self, err))) {
        blur_stop(blur);
        return st;
    }

    /* Fast-forward: simulate to frame A (its first blur sample) without drawing. */
    st = run->advance(run->self, blur ? wb_blur_sample_step(out, fl->first, blur->samples - 1, rate)
                                      : wb_runner_frame_step(out, fl->first, rate), err);
    for (int64_t f = fl->first; !st && f < fl->end; f++) {
        double t = (double)f / out->fps;
        bool shown = (f - fl->first) % every == 0; /* (the others are simulated only) */
        if (!blur || !shown)
            st = run->advance(run->self, wb_runner_frame_step(out, f, rate), err);
        if (st) {
            prefix_frame(err, f);
            break;
        }
        if (shown) {
            const WbDamage *damage;
            st = blur ? blur_next(fl, blur, f, &drawn, &last, &damage, err)
                      : draw_next(fl, &drawn, &last, &damage, err);
            if (!st)
                st = writer_put(&wr, f, &fl->frames[last], damage, err);
            if (st)
                break;
            res->written++;
            report(fl, f, t);
        }
        bool idle = run->idle(run->self);
        if (idle && idle_since < 0) {
            idle_since = t;
            if (res->settled_at < 0)
                res->settled_at = t;
        } else if (!idle) {
            idle_since = -1;
        }
        if (out->until_settled && idle_since >= 0 && t - idle_since >= out->settle_hold - 1e-9)
            break;
        if (fl->stop && *fl->stop) {
            res->interrupted = true;
            break;
        }
    }
    WbError werr;
    wb_error_clear(&werr);
    WbStatus wst = writer_stop(&wr, &werr);
    if (!st && wst) {
        *err = werr;
        st = wst;
    }
    blur_stop(blur);
    return st;
}

WbStatus wb_frame_loop_to_sink(void *sink, int64_t frame, const WbImage *img,
                               const WbDamage *damage, WbError *err)
{
    (void)frame;
    return wb_sink_write(sink, img, damage, err);
}

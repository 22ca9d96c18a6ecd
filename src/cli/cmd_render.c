/* cmd_render.c — `wobble render`: options → scene → runner → frame loop.
 *
 * This file checks what the user asked for (the frame range, the output
 * and stats paths) and sets the run up; the loop itself, its clock and its
 * writer thread are run/frame_loop.c.  `--frames A:B` fast-forwards the
 * solver to frame A without drawing.
 *
 * Nothing lost: every input is validated and the sink preflighted before
 * the first byte is written; SIGINT/SIGTERM stop the loop between frames
 * and the sink is finalized, so what was rendered plays (exit 130).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/pool.h"
#include "io/outpath.h"
#include "io/resume.h"
#include "io/sink.h"
#include "run/frame_loop.h"
#include "run/loop.h"
#include "run/runner.h"
#include "run/snapshot.h"
#include "scene/scene.h"
#include "scene/scene_load.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void default_output(const char *scene, char *buf, size_t n)
{
    const char *base = strrchr(scene, '/');
    base = base ? base + 1 : scene;
    if (!strcmp(scene, "-"))
        base = "wobble";
    size_t len = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        len = (size_t)(dot - base);
    snprintf(buf, n, "%.*s.mp4", (int)len, base);
}

static void fps_rational(double fps, int *num, int *den)
{
    /* Common rates exactly (29.97 = 30000/1001); others to 1/1000 precision. */
    static const struct { double f; int n, d; } known[] = {
        {23.976, 24000, 1001}, {29.97, 30000, 1001}, {59.94, 60000, 1001},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (fabs(fps - known[i].f) < 1e-3) {
            *num = known[i].n;
            *den = known[i].d;
            return;
        }
    }
    if (fabs(fps - floor(fps + 0.5)) < 1e-9) {
        *num = (int)floor(fps + 0.5);
        *den = 1;
        return;
    }
    *num = (int)lrint(fps * 1000.0);
    *den = 1000;
}

typedef struct RenderRun {
    const WbRenderOptions *o;
    WbScene scene;
    WbRunner runner;
    bool have_runner;
    WbPool *pool;
    WbSink *sink;
    WbImage frames[2];         /* drawn in turn while the writer takes the other */
    WbDamage damage[2];        /* what each one's last draw changed in it */
    FILE *stats;
    bool stats_stdout;         /* --stats -: the CSV goes to standard output */
    char out_path[WB_PATH_MAX];
    int64_t first, end;        /* frames [first, end) */
    int64_t written;
    int64_t sim_from;          /* the frame the simulation starts at (--state's snapshot, else 0) */
    double settled_at;         /* scene time of the first idle frame, -1 if none */
    bool interrupted;
    double t0;                 /* when the loop started, for the progress line */
    bool tty;                  /* show the progress line */
    WbResume *resume;          /* --resume: the journal, or NULL */
    int64_t range_first;       /* A of --frames (first moves past resumed frames) */
    int64_t journaled;         /* frames before this one are in the journal */
    WbStatus journal_st;       /* the first journal error, sticky */
    WbError journal_err;
    bool all_done;             /* --resume found every frame finished */
    FILE *events;              /* --progress json: NDJSON events, or NULL */
    WbLoopReport loop;         /* output.loop: the period and the seam found */
} RenderRun;

/* True when the output is standard output: "-", or a path naming the very
 * file stdout is (/dev/stdout, /dev/fd/1, the pipe or file behind it). */
static bool output_is_stdout(const char *path)
{
    if (strcmp(path, "-") == 0)
        return true;
    struct stat a, b;
    return fstat(STDOUT_FILENO, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The JSON summary goes to stdout, or to stderr when stdout carries the
 * stream itself (-o -, -o /dev/stdout): appended to it, it would corrupt
 * it. */
static void write_json(const RenderRun *r, double wall)
{
    const WbOutputDef *out = &r->scene.output;
    FILE *f = output_is_stdout(r->out_path) || r->stats_stdout ? stderr : stdout;
    fprintf(f, "{\"output\": ");
    wb_cli_json_string(f, r->out_path);
    fprintf(f, ", \"frames\": %lld, \"first_frame\": %lld, \"end_frame\": %lld, \"width\": %d, "
           "\"height\": %d, \"fps\": %.6g, \"seconds\": %.6f, \"render_fps\": %.3f, \"settled_at\": ",
           (long long)r->written, (long long)r->first, (long long)r->end, r->runner.width,
           r->runner.height,
           out->fps, wall, wall > 0 ? (double)r->written / wall : 0.0);
    if (r->settled_at >= 0)
        fprintf(f, "%.6f", r->settled_at);
    else
        fprintf(f, "null");
    /* Fixed steps taken from the start (snapshot) to the last frame written:
     * what a chunk costs in simulation, fast-forward included. */
    int64_t steps = 0;
    if (r->written > 0)
        steps = wb_runner_frame_step(out, r->first + r->written - 1, r->runner.rate) -
                wb_runner_frame_step(out, r->sim_from, r->runner.rate);
    fprintf(f, ", \"simulated_steps\": %lld", (long long)steps);
    if (out->pingpong)
        fprintf(f, ", \"output_frames\": %lld",
                (long long)wb_sink_pingpong_frames(r->end - r->first));
    const WbLoopReport *lp = &r->loop;
    if (lp->active)
        fprintf(f, ", \"loop\": {\"period\": %.9g, \"period_frames\": %lld, \"periods\": %d, "
                "\"preroll\": %.9g, \"settled\": %s, \"seam\": %.6g, \"amplitude\": %.6g, "
                "\"seam_share\": %.6g, \"unit\": \"%s\"}", lp->period,
                (long long)lp->period_frames, lp->periods, out->preroll,
                lp->settled ? "true" : "false", lp->seam, lp->amplitude, wb_loop_seam_share(lp),
                lp->unit);
    fprintf(f, ", \"interrupted\": %s}\n", r->interrupted ? "true" : "false");
}

/* Frames before `upto` are complete on disk: into the journal. */
static void journal_upto(RenderRun *r, int64_t upto)
{
    while (r->resume && !r->journal_st && r->journaled < upto) {
        r->journal_st = wb_resume_add(r->resume, r->journaled, &r->journal_err);
        r->journaled++;
    }
}

static void progress(void *ctx, int64_t f)
{
    RenderRun *r = ctx;
    /* frame f was just handed to the writer, after it finished f - 1 */
    journal_upto(r, f);
    if (!r->tty && !r->events)
        return;
    double el = now_seconds() - r->t0;
    int64_t done = f - r->first + 1, total = r->end - r->first;
    double fps = el > 0 ? (double)done / el : 0;
    double eta = fps > 0 ? (double)(total - done) / fps : 0;
    if (r->events) {
        fprintf(r->events, "{\"event\": \"frame\", \"frame\": %lld, \"done\": %lld, "
                "\"total\": %lld, \"seconds\": %.3f, \"fps\": %.3f, \"eta\": %.3f}\n",
                (long long)f, (long long)done, (long long)total, el, fps, eta);
        fflush(r->events);
        return;
    }
    fprintf(stderr, "\rframe %lld/%lld  %.1f fps  ETA %.0fs   ", (long long)(f + 1),
            (long long)r->end, fps, eta);
}

/* --stats FILE: "-" is standard output (then the JSON summary goes to
 * stderr, as with a stream on stdout); refused before anything is written
 * when empty, when the stream is on stdout too, or when it names the output
 * file (the finished output, renamed over it, would replace the CSV). */
static WbStatus check_stats(RenderRun *r, WbError *err)
{
    const char *path = r->o->stats;
    if (!path)
        return WB_OK;
    if (!*path)
        return wb_error_set(err, WB_E_INPUT, "--stats: the path is empty");
    if (strcmp(path, "-") == 0 || output_is_stdout(path)) {
        if (output_is_stdout(r->out_path))
            return wb_error_set(err, WB_E_INPUT,
                                "--stats '%s' and the output both go to standard output", path);
        r->stats_stdout = true;
        return WB_OK;
    }
    struct stat a, b;
    if (strcmp(path, r->out_path) == 0 ||
        (stat(path, &a) == 0 && stat(r->out_path, &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino))
        return wb_error_set(err, WB_E_INPUT, "--stats '%s' is the output file too", path);
    return WB_OK;
}

/* A GIF holds every frame until its palette is made: refuse, before any
 * work (and in --dry-run), a clip whose frames would not fit the limit. */
static WbStatus check_gif_size(const RenderRun *r, WbError *err)
{
    WbSinkKind kind;
    if (wb_sink_kind_for_path(r->out_path, &kind, NULL) != WB_OK || kind != WB_SINK_GIF)
        return WB_OK;
    int64_t limit = r->o->max_gif_pixels > 0 ? r->o->max_gif_pixels : WB_MAX_GIF_PIXELS;
    int64_t frames = r->end - r->first;
    if (r->scene.output.pingpong)
        frames = wb_sink_pingpong_frames(frames);
    int64_t px = (int64_t)r->runner.width * r->runner.height;
    if (frames <= limit / px)
        return WB_OK;
    return wb_error_set(err, WB_E_INPUT,
                        "a GIF holds every frame until the end: %lld frames of %dx%d are %lld "
                        "pixels, over the limit of %lld (--max-gif-pixels raises it; or fewer "
                        "frames, a smaller size, or a video format)",
                        (long long)frames, r->runner.width, r->runner.height,
                        (long long)(frames * px), (long long)limit);
}

/* No output may replace a file the run reads (the scene, the photo, its
 * mask, a weight map, the state): the video or PNG sequence and --stats all
 * go through the one check, before anything is written. */
static WbStatus spare_inputs(const RenderRun *r, WbError *err)
{
    WbInputFile in[WB_CLI_MAX_INPUTS];
    size_t n = wb_cli_run_inputs(&r->scene, r->o->scene, r->o->state, in);
    WbSinkKind kind;
    WbStatus st = WB_OK;
    if (!output_is_stdout(r->out_path) &&
        wb_sink_kind_for_path(r->out_path, &kind, NULL) == WB_OK)
        st = wb_outpath_spare_inputs("output", r->out_path, kind == WB_SINK_PNGSEQ, r->first,
                                     r->scene.output.pingpong /* the frames back too */
                                         ? r->first + wb_sink_pingpong_frames(r->end - r->first)
                                         : r->end, in, n, err);
    if (!st && r->o->stats && !r->stats_stdout)
        st = wb_outpath_spare_inputs("--stats", r->o->stats, false, 0, 0, in, n, err);
    return st;
}

static WbStatus open_stats(RenderRun *r, WbError *err)
{
    if (!r->o->stats)
        return WB_OK;
    if (r->stats_stdout) {
        r->stats = stdout;
        fputs("frame,time,moving,max_displacement,max_speed,hash,limited,folded\n", r->stats);
        return WB_OK;
    }
    r->stats = fopen(r->o->stats, "w");
    if (!r->stats)
        return wb_error_set(err, WB_E_IO, "cannot write stats '%s': %s", r->o->stats, strerror(errno));
    fputs("frame,time,moving,max_displacement,max_speed,hash,limited,folded\n", r->stats);
    return WB_OK;
}

static WbStatus close_stats(RenderRun *r, WbError *err)
{
    if (!r->stats)
        return WB_OK;
    int bad = ferror(r->stats);
    bad |= (r->stats_stdout ? fflush(r->stats) : fclose(r->stats)) != 0;
    r->stats = NULL;
    if (bad)
        return wb_error_set(err, WB_E_IO, "write error on stats '%s'", r->o->stats);
    return WB_OK;
}

/* --resume: only a PNG sequence keeps its finished frames; the journal
 * says which, for this very render (the key), and the range starts after
 * the last one that checks out. */
static WbStatus open_resume(RenderRun *r, WbError *err)
{
    const WbRenderOptions *o = r->o;
    WbSinkKind kind;
    WbStatus st = wb_sink_kind_for_path(r->out_path, &kind, err);
    if (st)
        return st;
    if (r->scene.output.pingpong)
        return wb_error_set(err, WB_E_INPUT, "--resume cannot go on with output.pingpong: the "
                            "frames back are written at the end");
    if (kind != WB_SINK_PNGSEQ)
        return wb_error_set(err, WB_E_INPUT,
                            "--resume needs a PNG sequence output (NAME_%%04d.png); '%s' is "
                            "written whole (render its chunk again, from --state)", r->out_path);
    char key[512];
    snprintf(key, sizeof key, "scene=%016llx frames=%lld:%lld size=%dx%d alpha=%d aa=%d pix_fmt=%s",
             (unsigned long long)wb_snapshot_scene_hash(&r->scene), (long long)r->first,
             (long long)r->end, r->runner.width, r->runner.height, r->runner.alpha ? 1 : 0, o->aa,
             o->pix_fmt ? o->pix_fmt : "-");
    int64_t done;
    st = wb_resume_open(&r->resume, r->out_path, r->first, r->end, key, r->runner.width,
                        r->runner.height, &done, err);
    if (st)
        return st;
    r->first += done;
    r->journaled = r->first;
    r->all_done = r->first >= r->end;
    return WB_OK;
}

static WbStatus prepare(RenderRun *r, WbError *err)
{
    const WbRenderOptions *o = r->o;
    WbStatus st = wb_scene_load_from(o->scene, o->sets, o->set_option, o->n_sets, &r->scene, err);
    if (st)
        return st;
    /* The runner looks at the flag inside long work too (a fast-forward,
     * a heavy cloth step), so a signal is answered in well under a second. */
    WbRunnerOptions ro = {
        .aa = o->aa, .stop = &wb_cli_stop, .max_pixels = o->max_pixels,
        .max_events = o->max_events};
    /* output.loop: the loop's pre-roll and length replace the scene's */
    st = wb_loop_resolve(&r->scene, &ro, &r->loop, err);
    if (st)
        return st;
    st = wb_runner_create(&r->runner, &r->scene, &ro, err);
    if (st)
        return st;
    r->have_runner = true;

    const WbOutputDef *out = &r->scene.output;
    int64_t total = wb_runner_frame_count(out);
    /* The range is cut to the scene's frames, like an open end: a B past
     * output.duration must not render frames of a scene that has ended
     * (`A:` past the end is an error, and so is `A:B` that starts there). */
    r->first = o->frame_a;
    r->end = o->frame_b >= 0 && o->frame_b < total ? o->frame_b : total;
    if (r->first >= r->end)
        return wb_error_set(err, WB_E_INPUT,
                            "--frames %lld: the scene has only %lld frames (%.6g s at %.6g fps)",
                            (long long)r->first, (long long)total, out->duration, out->fps);

    if (o->output) {
        /* Cut short, the path would lose its extension and be refused as
         * an unknown kind of output: say what is wrong instead. */
        if (strlen(o->output) >= sizeof r->out_path)
            return wb_error_set(err, WB_E_INPUT, "output path is too long (%zu bytes; at most %zu)",
                                strlen(o->output), sizeof r->out_path - 1);
        snprintf(r->out_path, sizeof r->out_path, "%s", o->output);
    } else
        default_output(o->scene, r->out_path, sizeof r->out_path);
    /* A video stream is no use on a terminal and leaves it full of binary
     * noise (and possibly mangled settings): refuse, as compressors do. */
    if (output_is_stdout(r->out_path) && isatty(STDOUT_FILENO))
        return wb_error_set(err, WB_E_INPUT,
                            "not writing the y4m stream to a terminal: pipe it (-o - | ffmpeg -i - "
                            "out.mp4) or name an output file with -o");
    r->range_first = r->first;
    if (o->resume && !o->dry_run) {
        st = open_resume(r, err);
        if (st || r->all_done)
            return st;
    }
    /* --state: start from the last snapshot at or before the first frame
     * to draw; the frame loop's fast-forward goes on from there. */
    if (o->state) {
        int64_t from;
        st = wb_snapshot_restore(&r->runner, &r->scene, o->state, r->first, &from, err);
        if (st)
            return st;
        r->sim_from = from;
    }
    return WB_OK;
}

static WbSinkOptions sink_options(const RenderRun *r, int threads)
{
    WbSinkOptions so = {
        .path = r->out_path,
        .width = r->runner.width,
        .height = r->runner.height,
        .alpha = r->runner.alpha,
        .codec = r->o->codec,
        .preset = r->o->preset,
        .pix_fmt = r->o->pix_fmt,
        .crf = r->o->crf,
        .threads = 0,
        .first_frame = r->first,
        .frame_count = r->end - r->first,
        .loop_count = r->scene.output.loop_count,
        .pingpong = r->scene.output.pingpong,
        .crf_given = r->o->crf >= 0,
        .preset_given = r->o->preset != NULL,
    };
    (void)threads;
    fps_rational(r->scene.output.fps, &so.fps_num, &so.fps_den);
    if (so.pingpong)
        so.frame_count = wb_sink_pingpong_frames(so.frame_count);
    return so;
}

/* --progress json: the events go to stderr or a duplicate of --progress-fd
 * (closing ours leaves the caller's descriptor open). */
static WbStatus open_events(RenderRun *r, WbError *err)
{
    int fd = r->o->progress_fd;
    if (r->o->progress != WB_PROGRESS_JSON)
        return WB_OK;
    if (fd == STDERR_FILENO) {
        r->events = stderr;
        return WB_OK;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl == -1 || (fl & O_ACCMODE) == O_RDONLY)
        return wb_error_set(err, WB_E_INPUT, "--progress-fd %d: not a descriptor open for writing", fd);
    int copy = dup(fd);
    r->events = copy < 0 ? NULL : fdopen(copy, "w");
    if (!r->events) {
        if (copy >= 0)
            close(copy);
        return wb_error_set(err, WB_E_IO, "--progress-fd %d: %s", fd, strerror(errno));
    }
    return WB_OK;
}

static void event_start(const RenderRun *r)
{
    if (!r->events)
        return;
    fprintf(r->events, "{\"event\": \"start\", \"output\": ");
    wb_cli_json_string(r->events, r->out_path);
    fprintf(r->events, ", \"first_frame\": %lld, \"end_frame\": %lld, \"total\": %lld, "
            "\"width\": %d, \"height\": %d, \"fps\": %.6g}\n", (long long)r->first,
            (long long)r->end, (long long)(r->end - r->first), r->runner.width, r->runner.height,
            r->scene.output.fps);
    fflush(r->events);
}

/* The last event: how the run ended, with the exit code it gives.  A
 * progress reader that went away is not the render's failure: its write
 * errors are dropped with the stream. */
static void event_end(RenderRun *r, WbStatus st, const WbError *err, double wall)
{
    if (!r->events)
        return;
    const char *how = st == WB_OK ? "done" : st == WB_E_INTERRUPTED ? "interrupted"
                    : st == WB_E_DIVERGED ? "diverged" : "failed";
    fprintf(r->events, "{\"event\": \"end\", \"status\": \"%s\", \"code\": %d, "
            "\"frames\": %lld, \"seconds\": %.3f", how, (int)st, (long long)r->written, wall);
    if (st) {
        fputs(", \"message\": ", r->events);
        wb_cli_json_string(r->events, err->msg);
    }
    fputs("}\n", r->events);
    if (r->events == stderr)
        fflush(stderr);
    else
        fclose(r->events);
    r->events = NULL;
}

/* output.loop: the period found and the seam error, on stderr; a warning
 * when the seam is over what a viewer could see (loop.h). */
static void report_loop(const RenderRun *r)
{
    const WbLoopReport *lp = &r->loop;
    if (!lp->active || r->o->quiet)
        return;
    const WbOutputDef *out = &r->scene.output;
    fprintf(stderr, "wobble: loop: period %.6g s (%lld frames; %s), %d rendered after a "
            "pre-roll of %lld periods (%.6g s)%s; seam error %.3g %s, %.3g %% of the motion's "
            "%.3g %s\n",
            lp->period, (long long)lp->period_frames, lp->drivers, lp->periods,
            (long long)lp->preroll_periods, out->preroll,
            lp->settled ? "" : " (not settled within the search)", lp->seam, lp->unit,
            100.0 * wb_loop_seam_share(lp), lp->amplitude, lp->unit);
    if (wb_loop_seam_visible(lp))
        fprintf(stderr, "wobble: warning: the loop's seam error is %.3g %% of the motion, over "
                "the %.3g %% a viewer can see: the motion has not settled into the period "
                "(more damping, or fewer drivers)\n", 100.0 * wb_loop_seam_share(lp),
                100.0 * WB_LOOP_SEAM_SHARE);
}

/* What the output will do that the user may not expect, before any work:
 * warnings on stderr (the render goes on). */
static void warn_notes(const WbSinkOptions *so)
{
    WbSinkNotes notes;
    wb_sink_notes(so, &notes);
    for (int i = 0; i < notes.n; i++)
        fprintf(stderr, "wobble: warning: %s\n", notes.msg[i]);
}

static WbStatus frame_loop(RenderRun *r, WbError *err)
{
    bool tty = !r->events && !r->o->quiet && r->o->progress == WB_PROGRESS_AUTO &&
               isatty(STDERR_FILENO);
    r->tty = tty;
    WbFrameLoop fl = {
        .runner = &r->runner,
        .pool = r->pool,
        .write = wb_frame_loop_to_sink,
        .write_self = r->sink,
        .frames = r->frames,
        .damage = r->damage,
        .output = &r->scene.output,
        .first = r->first,
        .end = r->end,
        .stats = r->stats,
        .progress = tty || r->resume || r->events ? progress : NULL,
        .ctx = r,
        .stop = &wb_cli_stop,
    };
    WbFrameLoopResult res;
    r->t0 = now_seconds();
    WbStatus st = wb_frame_loop_run(&fl, &res, err);
    r->written = res.written;
    r->settled_at = res.settled_at;
    r->interrupted = res.interrupted;
    /* Stopped inside a step: the frames handed over stand, as when the
     * loop stops between frames. */
    if (st == WB_E_INTERRUPTED) {
        r->interrupted = true;
        st = WB_OK;
    }
    /* the writer has stopped: every frame it took is on disk */
    if (!st)
        journal_upto(r, r->first + r->written);
    if (!st && r->journal_st) {
        *err = r->journal_err;
        st = r->journal_st;
    }
    if (tty)
        fputc('\n', stderr);
    return st;
}

/* After a watchdog stop: the message says what was kept. */
static void say_kept(const RenderRun *r, WbError *err)
{
    size_t n = strlen(err->msg);
    if (strcmp(r->out_path, "-") == 0)
        snprintf(err->msg + n, sizeof err->msg - n, "; the %lld frames before it were finalized on "
                 "standard output", (long long)r->written);
    else
        snprintf(err->msg + n, sizeof err->msg - n, "; the %lld frames before it were kept in '%s'",
                 (long long)r->written, r->out_path);
}

static int pool_threads(int requested)
{
    if (requested > 0)
        return requested;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

WbStatus wb_cmd_render(const WbRenderOptions *o, WbError *err)
{
    RenderRun r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.settled_at = -1;
    double t_start = now_seconds();
    WbStatus st = prepare(&r, err);
    if (!st && r.all_done) {
        /* an earlier run finished every frame; they checked out */
        st = wb_resume_close(r.resume, true, err);
        r.resume = NULL;
        if (!st && o->json)
            write_json(&r, now_seconds() - t_start);
        goto done;
    }
    if (!st)
        st = check_stats(&r, err);
    if (!st)
        st = spare_inputs(&r, err);
    if (!st)
        st = check_gif_size(&r, err);
    WbSinkOptions so;
    if (!st) {
        so = sink_options(&r, o->threads);
        st = wb_sink_preflight(&so, err);
    }
    if (!st)
        warn_notes(&so);
    if (!st)
        report_loop(&r);
    if (!st && o->dry_run) {
        if (o->json)
            write_json(&r, 0.0);
        goto done;
    }
    if (!st)
        st = wb_pool_create(&r.pool, pool_threads(o->threads), err);
    /* A signal also stops a frame being drawn, between its bands. */
    wb_pool_set_stop(r.pool, &wb_cli_stop);
    for (int i = 0; i < 2 && !st; i++)
        st = wb_image_alloc(&r.frames[i], r.runner.width, r.runner.height, err);
    if (!st)
        st = open_stats(&r, err);
    if (!st)
        st = open_events(&r, err);
    WbCliSignals old_signals;
    if (!st) {
        wb_cli_signals_catch(&old_signals);
        st = wb_sink_open(&r.sink, &so, err);
        if (!st) {
            event_start(&r);
            st = frame_loop(&r, err);
            WbError cerr;
            wb_error_clear(&cerr);
            /* Keep what was rendered when interrupted or stopped by the
             * watchdog (the frames before the bad one are good; a fast-forward
             * cut short has nothing to keep); drop it on any other failure. */
            bool keep = r.written > 0 && (st == WB_OK || st == WB_E_DIVERGED);
            WbStatus cst = wb_sink_close(r.sink, keep, &cerr);
            r.sink = NULL;
            if (st == WB_E_DIVERGED && keep && !cst)
                say_kept(&r, err);
            if ((!st || st == WB_E_DIVERGED) && cst) {
                *err = cerr;
                st = cst;
            }
        }
        wb_cli_signals_restore(&old_signals);
        WbError serr;
        wb_error_clear(&serr);
        WbStatus sst = close_stats(&r, &serr);
        if (!st && sst) {
            *err = serr;
            st = sst;
        }
    }
    if (!st && o->json)
        write_json(&r, now_seconds() - t_start);
    if (!st && r.interrupted) {
        if (r.written == 0)
            wb_error_set(err, WB_E_INTERRUPTED, "before the first frame; nothing written");
        else if (strcmp(r.out_path, "-") == 0)
            wb_error_set(err, WB_E_INTERRUPTED, "%lld frames finalized on standard output",
                         (long long)r.written);
        else
            wb_error_set(err, WB_E_INTERRUPTED, "%lld frames finalized in '%s'",
                         (long long)r.written, r.out_path);
        st = WB_E_INTERRUPTED;
    }
    if (r.resume) {
        WbError jerr;
        wb_error_clear(&jerr);
        WbStatus jst = wb_resume_close(r.resume, st == WB_OK, &jerr);
        if (!st && jst) {
            *err = jerr;
            st = jst;
        }
        r.resume = NULL;
    }
done:
    wb_resume_close(r.resume, false, NULL);
    event_end(&r, st, err, now_seconds() - t_start);
    if (r.stats && !r.stats_stdout)
        fclose(r.stats);
    wb_image_free(&r.frames[0]);
    wb_image_free(&r.frames[1]);
    wb_damage_free(&r.damage[0]);
    wb_damage_free(&r.damage[1]);
    if (r.pool)
        wb_pool_destroy(r.pool);
    if (r.have_runner)
        r.runner.destroy(r.runner.self);
    wb_scene_free(&r.scene);
    return st;
}

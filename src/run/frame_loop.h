/* frame_loop.h — the frame loop: advance the runner to each frame's step,
 * draw it when it changed, hand it to the sink, stop when told or settled.
 *
 * Frame f shows the simulation after floor(f·rate/fps) steps
 * (wb_runner_step_for_frame).  Frames are drawn into two caller-owned
 * buffers in turn while a writer thread hands the other to the frame's
 * consumer (render: the encoder, wb_frame_loop_to_sink; check: the golden
 * compare), which sees every frame in order from one thread at a time.
 */
#ifndef WB_FRAME_LOOP_H
#define WB_FRAME_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/damage.h"
#include "core/error.h"
#include "core/image.h"
#include "core/pool.h"
#include "io/sink.h"
#include "run/runner.h"
#include "scene/scene.h"

/* Takes frame number `frame`, on the writer thread.  damage: where `img`
 * differs from what the same buffer held when it was last handed over (as
 * wb_sink_write takes it).  An error stops the loop at the next hand-over;
 * no later frame is handed over. */
typedef WbStatus (*WbFrameWrite)(void *self, int64_t frame, const WbImage *img,
                                 const WbDamage *damage, WbError *err);

typedef struct WbFrameLoop {
    const WbRunner *runner;
    WbPool *pool;
    WbFrameWrite write;        /* where the frames go */
    void *write_self;
    WbImage *frames;           /* [2], runner-sized: drawn in turn */
    WbDamage *damage;          /* [2]: what each one's last draw changed */
    const WbOutputDef *output; /* fps, until_settled, settle_hold */
    int64_t first, end;        /* frames [first, end) */
    int64_t every;             /* hand over frames first, first + every, ... (the others are
                                  simulated, not drawn); 0 or 1: every frame */
    FILE *stats;               /* a CSV row per frame (the caller wrote the head), or NULL */
    /* Called after each frame is handed over, or NULL. */
    void (*progress)(void *ctx, int64_t frame);
    void *ctx;
    const volatile sig_atomic_t *stop; /* non-zero: stop between frames; or NULL */
} WbFrameLoop;

typedef struct WbFrameLoopResult {
    int64_t written;           /* frames handed over */
    double settled_at;         /* scene time of the first idle frame, -1 if none */
    bool interrupted;          /* *stop ended the loop */
} WbFrameLoopResult;

/* Run the loop.  Errors: the runner's (prefixed "frame N: " when advancing
 * failed), the first write error, WB_E_IO when the writer thread cannot
 * start.  *res is filled either way. */
WbStatus wb_frame_loop_run(const WbFrameLoop *fl, WbFrameLoopResult *res, WbError *err);

/* A WbFrameWrite for an open sink (self: the WbSink; the caller closes it). */
WbStatus wb_frame_loop_to_sink(void *sink, int64_t frame, const WbImage *img,
                               const WbDamage *damage, WbError *err);

#endif

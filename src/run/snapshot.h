/* snapshot.h — a runner's state in a state file (io/state.h): wobble bake
 * writes one snapshot every K frames, render --state starts from the
 * nearest one at or before its first frame.
 *
 * A state file is tied to the effective scene: the scene as `wobble info`
 * prints it after --set and the command's options, its input files'
 * contents (photo.image, photo.mask, jiggle.weights) in place of their
 * paths, and to the wobble version.  A state that does not match is
 * refused (WB_E_INPUT), so a wrong state can never give a wrong frame.
 */
#ifndef WB_SNAPSHOT_H
#define WB_SNAPSHOT_H

#include <signal.h>
#include <stdint.h>

#include "core/error.h"
#include "run/runner.h"
#include "scene/scene.h"

/* Seconds of simulation between snapshots by default: a chunk started
 * from a state re-simulates at most this much. */
#define WB_SNAPSHOT_SECONDS 2.0

/* The hash a state file carries for this scene. */
uint64_t wb_snapshot_scene_hash(const WbScene *scene);

/* Frames between snapshots: `every` when > 0, else WB_SNAPSHOT_SECONDS of
 * frames at the scene's fps (at least 1). */
int64_t wb_snapshot_every(const WbScene *scene, int64_t every);

typedef struct WbBake {
    const WbScene *scene;
    const WbRunner *runner;    /* new: at step 0 */
    const char *path;          /* the state file to write */
    int64_t every;             /* frames between snapshots (wb_snapshot_every) */
    /* Called after each snapshot, or NULL. */
    void (*progress)(void *ctx, int64_t frame, int64_t frames);
    void *ctx;
    const volatile sig_atomic_t *stop; /* non-zero: stop (nothing is written); or NULL */
} WbBake;

typedef struct WbBakeResult {
    int64_t snapshots, frames; /* written, and frames in the scene */
    int64_t end_frame;         /* where a render stops: frames, or the settling frame + 1 */
    double settled_at;         /* scene time of the first idle frame, -1 if none */
    uint64_t bytes;            /* payload bytes of one snapshot */
    bool interrupted;
} WbBakeResult;

/* Simulate the scene without drawing and write a snapshot at frames 0, K,
 * 2K, ... below the frame where a render stops (the scene's frame count, or
 * with until_settled its settling point), then rename the file into place.
 * Errors: the runner's ("frame N: ..."), WB_E_IO for the file; on any
 * error or a stop, nothing is left at the path. */
WbStatus wb_bake_run(const WbBake *b, WbBakeResult *res, WbError *err);

/* Load the runner (new, of `scene`) from the last snapshot in `path` at or
 * before `frame`; *from is that snapshot's frame.  WB_E_INPUT naming the
 * file and the problem: unreadable, truncated, corrupt, another format,
 * another wobble version, another scene or kind. */
WbStatus wb_snapshot_restore(const WbRunner *r, const WbScene *scene, const char *path,
                             int64_t frame, int64_t *from, WbError *err);

#endif

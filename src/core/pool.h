/* pool.h — a tiny fixed-size thread pool for data-parallel loops.
 *
 * wb_pool_run() hands out task indices 0..n_tasks-1 to the pool's threads
 * (the calling thread takes part) and returns when every task has finished.
 * Which thread runs which task is not fixed, so a task must only depend on
 * its index: results then do not depend on the number of threads.  That is
 * how the renderer stays bit-identical for every --threads value (it splits
 * a frame into fixed bands, never into "one piece per thread").
 *
 * A pool of 1 thread creates no threads and runs every task inline, in
 * index order.  A NULL pool is accepted everywhere and behaves like that.
 * wb_pool_run() is not reentrant: a task must not call wb_pool_run() on the
 * same pool, and only one thread at a time may submit work to a pool.
 */
#ifndef WB_POOL_H
#define WB_POOL_H

#include <signal.h>

#include "core/error.h"

#define WB_POOL_MAX_THREADS 256

typedef struct WbPool WbPool;

/* `task` is in [0, n_tasks); `ctx` is the pointer given to wb_pool_run(). */
typedef void (*WbPoolFn)(void *ctx, int task);

/* Create a pool of `threads` threads in total (1..WB_POOL_MAX_THREADS; the
 * caller's thread counts as one, so threads-1 are started).  On failure
 * *pool is NULL and err says why (WB_E_INPUT: bad count; WB_E_IO: the
 * system refused a thread or memory). */
WbStatus wb_pool_create(WbPool **pool, int threads, WbError *err);

/* Stop and join the threads; NULL is a no-op. */
void wb_pool_destroy(WbPool *pool);

/* Number of threads that run tasks (1 for a NULL pool). */
int wb_pool_threads(const WbPool *pool);

/* A flag the pool's users look at between coarse pieces of work (the
 * raster's bands), so one huge frame answers a signal: non-zero means stop
 * and report WB_E_INTERRUPTED.  NULL (the default) never stops.  The pool
 * itself only carries it; wb_pool_run always runs every task. */
void wb_pool_set_stop(WbPool *pool, const volatile sig_atomic_t *stop);
/* The flag set by wb_pool_set_stop (NULL for a NULL pool or none set). */
const volatile sig_atomic_t *wb_pool_stop(const WbPool *pool);

/* Run fn(ctx, t) for every t in [0, n_tasks) and wait for all of them.
 * n_tasks <= 0 returns at once.  Tasks run concurrently in any order. */
void wb_pool_run(WbPool *pool, int n_tasks, WbPoolFn fn, void *ctx);

#endif

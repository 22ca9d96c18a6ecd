/* pool.c — see pool.h.
 *
 * One job at a time.  A job is (fn, ctx, n_tasks); tasks are claimed with an
 * atomic counter so fast threads take more of them.  Workers sleep on a
 * condition variable between jobs and wake when the job generation changes;
 * the submitting thread claims tasks too, then sleeps until every task is
 * done AND no worker is still inside the claim loop.  The second condition
 * matters: a worker that woke late could otherwise still be about to
 * increment `next` when the following job resets it, and run a task twice.
 * Cost per job is one broadcast and one wake-up per worker (tens of
 * microseconds), so jobs should be coarse (bands, chunks).
 */
#include "core/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct WbPool {
    int threads;              /* including the caller */
    pthread_t *tid;           /* threads-1 workers */
    int started;              /* workers actually running */

    pthread_mutex_t lock;
    pthread_cond_t wake;      /* workers: a new job or stop */
    pthread_cond_t done;      /* submitter: the last task finished */
    unsigned long generation; /* bumped per job, under lock */
    int stop;                 /* under lock */

    /* The current job; written under lock before the generation bump. */
    WbPoolFn fn;
    void *ctx;
    int n_tasks;
    atomic_int next;          /* next task index to claim */
    int finished;             /* tasks completed; under lock */
    int active;               /* workers inside drain(); under lock */

    const volatile sig_atomic_t *user_stop; /* wb_pool_set_stop; only carried */
};

/* Claim and run tasks until none are left; returns how many this thread ran. */
static int drain(WbPool *p)
{
    int ran = 0;
    for (;;) {
        int t = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (t >= p->n_tasks)
            break;
        p->fn(p->ctx, t);
        ran++;
    }
    return ran;
}


static void *worker(void *arg)
{
    WbPool *p = arg;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop) {
            pthread_mutex_unlock(&p->lock);
            return NULL;
        }
        seen = p->generation;
        p->active++;
        pthread_mutex_unlock(&p->lock);
        int ran = drain(p);
        pthread_mutex_lock(&p->lock);
        p->finished += ran;
        p->active--;
        if (p->active == 0 && p->finished >= p->n_tasks)
            pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->lock);
    }
}

WbStatus wb_pool_create(WbPool **pool, int threads, WbError *err)
{
    *pool = NULL;
    if (threads < 1 || threads > WB_POOL_MAX_THREADS)
        return wb_error_set(err, WB_E_INPUT, "thread count %d is out of range (1..%d)",
                            threads, WB_POOL_MAX_THREADS);
    WbPool *p = calloc(1, sizeof *p);
    if (!p)
        return wb_error_set(err, WB_E_IO, "out of memory for a thread pool");
    p->threads = threads;
    atomic_init(&p->next, 0);
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        return wb_error_set(err, WB_E_IO, "cannot create a mutex for the thread pool");
    }
    if (pthread_cond_init(&p->wake, NULL) != 0 || pthread_cond_init(&p->done, NULL) != 0) {
        /* Destroying an uninitialised cond is undefined; init both or neither
         * matters little here, so fail before any thread exists. */
        pthread_mutex_destroy(&p->lock);
        free(p);
        return wb_error_set(err, WB_E_IO, "cannot create condition variables for the thread pool");
    }
    if (threads > 1) {
        p->tid = calloc((size_t)threads - 1, sizeof *p->tid);
        if (!p->tid) {
            wb_pool_destroy(p);
            return wb_error_set(err, WB_E_IO, "out of memory for a thread pool");
        }
        for (int i = 0; i < threads - 1; i++) {
            if (pthread_create(&p->tid[i], NULL, worker, p) != 0) {
                wb_pool_destroy(p);
                return wb_error_set(err, WB_E_IO, "cannot start thread %d of %d", i + 2, threads);
            }
            p->started++;
        }
    }
    *pool = p;
    return WB_OK;
}

void wb_pool_destroy(WbPool *pool)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < pool->started; i++)
        pthread_join(pool->tid[i], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->lock);
    free(pool->tid);
    free(pool);
}

int wb_pool_threads(const WbPool *pool)
{
    return pool ? pool->threads : 1;
}

void wb_pool_set_stop(WbPool *pool, const volatile sig_atomic_t *stop)
{
    if (pool)
        pool->user_stop = stop;
}

const volatile sig_atomic_t *wb_pool_stop(const WbPool *pool)
{
    return pool ? pool->user_stop : NULL;
}

void wb_pool_run(WbPool *pool, int n_tasks, WbPoolFn fn, void *ctx)
{
    if (n_tasks <= 0)
        return;
    if (!pool || pool->started == 0 || n_tasks == 1) {
        for (int t = 0; t < n_tasks; t++)
            fn(ctx, t);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    /* A worker that joined the previous job late may still be draining it. */
    while (pool->active > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pool->fn = fn;
    pool->ctx = ctx;
    pool->n_tasks = n_tasks;
    pool->finished = 0;
    atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    int ran = drain(pool);

    pthread_mutex_lock(&pool->lock);
    pool->finished += ran;
    while (pool->finished < n_tasks || pool->active > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}

/* Tests of the thread pool: every task runs exactly once, for any thread
 * count, across many back-to-back jobs (the hand-over between jobs is where
 * a pool goes wrong). */
#include <criterion/criterion.h>
#include <stdatomic.h>

#include "core/pool.h"

typedef struct Count {
    atomic_int hits[997];
} Count;

static void hit(void *ctx, int task)
{
    Count *c = ctx;
    atomic_fetch_add(&c->hits[task], 1);
}

Test(pool, every_task_runs_once)
{
    for (int threads = 1; threads <= 4; threads++) {
        WbPool *pool;
        WbError err;
        cr_assert_eq(wb_pool_create(&pool, threads, &err), WB_OK);
        cr_assert_eq(wb_pool_threads(pool), threads);
        static Count c;
        for (int round = 0; round < 300; round++) {
            int n = 1 + (round * 37) % 997;
            for (int i = 0; i < n; i++)
                atomic_store(&c.hits[i], 0);
            wb_pool_run(pool, n, hit, &c);
            for (int i = 0; i < n; i++)
                cr_assert_eq(atomic_load(&c.hits[i]), 1, "threads %d round %d task %d ran %d times",
                             threads, round, i, atomic_load(&c.hits[i]));
        }
        wb_pool_destroy(pool);
    }
}

static void record_order(void *ctx, int task)
{
    int *order = ctx;
    order[task] = order[100]++;
}

Test(pool, null_and_single_thread_run_inline_in_order)
{
    int order[101] = {0};
    wb_pool_run(NULL, 100, record_order, order);
    for (int i = 0; i < 100; i++)
        cr_assert_eq(order[i], i);
    cr_assert_eq(wb_pool_threads(NULL), 1);

    WbPool *pool;
    cr_assert_eq(wb_pool_create(&pool, 1, NULL), WB_OK);
    order[100] = 0;
    wb_pool_run(pool, 100, record_order, order);
    for (int i = 0; i < 100; i++)
        cr_assert_eq(order[i], i);
    wb_pool_run(pool, 0, record_order, order); /* no tasks: no call */
    cr_assert_eq(order[100], 100);
    wb_pool_destroy(pool);
    wb_pool_destroy(NULL);
}

Test(pool, bad_thread_count_is_an_input_error)
{
    WbPool *pool = (WbPool *)1;
    WbError err;
    cr_assert_eq(wb_pool_create(&pool, 0, &err), WB_E_INPUT);
    cr_assert_null(pool);
    cr_assert_eq(wb_pool_create(&pool, WB_POOL_MAX_THREADS + 1, &err), WB_E_INPUT);
    cr_assert(strstr(err.msg, "thread count") != NULL);
}

/* tmpdir.h — a fresh temporary folder for each test of a suite that writes
 * files, removed again after the test.
 *
 * Header only, everything static: every .c file of tests/unit is linked
 * into one test binary, so each file that includes this gets its own copy
 * and no names clash.  Define TMPDIR_TEMPLATE (a mkdtemp template, e.g.
 * "/tmp/wb_io_XXXXXX") before including it, then:
 *     TestSuite(name, .init = make_dir, .fini = remove_dir);
 * `dir` is the folder of the running test; in_dir(NAME) a path inside it. */
#ifndef WB_TEST_TMPDIR_H
#define WB_TEST_TMPDIR_H

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>

#ifndef TMPDIR_TEMPLATE
#error "define TMPDIR_TEMPLATE before including tmpdir.h"
#endif

static char dir[256];

static inline void make_dir(void)
{
    snprintf(dir, sizeof dir, "%s", TMPDIR_TEMPLATE);
    cr_assert_not_null(mkdtemp(dir));
}

static inline void remove_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* DIR/NAME; the result stays valid for the next 7 calls (a test may hold a
 * few paths at once). */
static inline const char *in_dir(const char *name)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

#endif
